package io.runlane.autoconfigure.console;

import io.runlane.Run;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's operator actions (S-CO-2, S-RV-5): cancel, retry, rerun and resume a run, reset an idempotency key, each through
 * {@link RunlaneTemplate}'s operator API ({@link ConsoleSchedules} pauses, resumes and triggers schedules; {@link
 * ConsoleRecovery} forks runs and resumes or cancels them in bulk). {@link #guard()} lets a write through only when the console is
 * unrestricted (otherwise 403) and the request carries the {@value #HEADER} header and a JSON body. Browsers send
 * neither from a cross-site form, and a cross-site script cannot send them without a CORS preflight the application
 * does not grant, so the actions are CSRF-safe on their own; behind Spring Security, its CSRF token is required as
 * well.
 */
final class ConsoleActions {

    static final String HEADER = "X-Runlane-Console";

    private final ConsoleSettings settings;

    private final RunlaneTemplate runlane;

    private final ConsoleReads reads;

    ConsoleActions(ConsoleSettings settings, RunlaneTemplate runlane, ConsoleReads reads) {
        this.settings = settings;
        this.runlane = runlane;
        this.reads = reads;
    }

    HandlerFilterFunction<ServerResponse, ServerResponse> guard() {
        return (request, next) -> {
            if (!settings.unrestricted()) {
                return ConsoleResponses.error(
                        HttpStatus.FORBIDDEN,
                        "console_read_only",
                        "The console is read-only; runlane.console.access=unrestricted enables its actions");
            }
            if (!"1".equals(request.headers().firstHeader(HEADER))) {
                return ConsoleResponses.error(
                        HttpStatus.FORBIDDEN, "console_header_missing", "Actions require the header " + HEADER + ": 1");
            }
            MediaType type = request.headers().contentType().orElse(null);
            if (type == null || !MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
                return ConsoleResponses.error(
                        HttpStatus.UNSUPPORTED_MEDIA_TYPE, "json_required", "Actions take a JSON body");
            }
            return next.handle(request);
        };
    }

    /**
     * {@code POST api/runs/{runId}/cancel|retry|rerun|resume}; answers the cancelled or resumed run, or the new run,
     * with history.
     */
    ServerResponse runAction(ServerRequest request) throws Exception {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        RunOperations runs = runlane.runs();
        Run result = switch (request.pathVariable("action")) {
            case "cancel" ->
                runs.cancel(runId, reason(body(request, CancelBody.class).reason()));
            case "retry" -> runs.retry(runId);
            case "rerun" -> runs.rerun(runId);
            case "resume" -> runs.resume(runId);
            default -> throw new ConsoleRequestException("Unknown action; use cancel, retry, rerun or resume");
        };
        return ConsoleResponses.json(reads.detail(result, request));
    }

    /** {@code POST api/idempotency-keys/reset} with {@code {"taskId": …, "key": …}} (S-IK-8). */
    ServerResponse resetKey(ServerRequest request) throws Exception {
        KeyResetBody body = body(request, KeyResetBody.class);
        if (body.taskId() == null || body.key() == null) {
            throw new ConsoleRequestException("A key reset needs taskId and key");
        }
        boolean reset = runlane.idempotencyKeys().reset(body.taskId(), body.key());
        return ConsoleResponses.json(new KeyReset(body.taskId(), body.key(), reset));
    }

    private static <T> T body(ServerRequest request, Class<T> type) throws Exception {
        try {
            return request.body(type);
        } catch (HttpMessageNotReadableException ex) {
            throw new ConsoleRequestException("The body is not a JSON object");
        }
    }

    private static String reason(@Nullable String reason) {
        return (reason == null || reason.isBlank()) ? "Cancelled from the console" : reason.trim();
    }

    /** The body of a cancel: an optional reason recorded with the event. */
    record CancelBody(@Nullable String reason) {}

    /** The body of a key reset. */
    record KeyResetBody(@Nullable String taskId, @Nullable String key) {}

    /** The answer to a key reset; {@code reset} is false when the key had no retained owner. */
    record KeyReset(String taskId, String key, boolean reset) {}
}

package io.runlane.autoconfigure.console;

import io.runlane.ConfigurationInvalidException;
import io.runlane.PayloadValidationException;
import io.runlane.Run;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.TaskNotFoundException;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The console's operator actions (S-CO-2, S-RV-5): cancel, retry, rerun and resume a run, reset an idempotency key,
 * trigger a task (S-CO-25), each through
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

    private final TaskRegistry tasks;

    private final JsonMapper jsonMapper;

    ConsoleActions(
            ConsoleSettings settings,
            RunlaneTemplate runlane,
            ConsoleReads reads,
            TaskRegistry tasks,
            JsonMapper jsonMapper) {
        this.settings = settings;
        this.runlane = runlane;
        this.reads = reads;
        this.tasks = tasks;
        this.jsonMapper = jsonMapper;
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

    /**
     * {@code POST api/tasks/{taskId}/trigger} with {@code {"payloadText": "{…}", "idempotencyKey": …, "delay": "30s"}}
     * (S-CO-25): the payload, as typed in the page, is read as the task's payload type with the application's mapper
     * and triggered like any payload (validated, S-ID-4); answers what the trigger did and the run. An undeclared task
     * answers 404, text that is not JSON or does not map onto the type 400 {@code payload_invalid} naming the field.
     */
    ServerResponse trigger(ServerRequest request) throws Exception {
        String taskId = request.pathVariable("taskId");
        TaskDefinition task = tasks.find(taskId).orElseThrow(() -> new TaskNotFoundException(taskId));
        TriggerBody body = body(request, TriggerBody.class);
        Object payload = payload(task, body.payloadText());
        TriggerOptions options = TriggerOptions.builder()
                .idempotencyKey(blankToNull(body.idempotencyKey()))
                .delay(delay(body.delay()))
                .build();
        TriggerResult result = runlane.trigger(task.id(), payload, options);
        return ConsoleResponses.json(
                new Triggered(result.outcome(), ConsoleValues.run(result.run(), reads.valuesShown(request))));
    }

    /** The typed payload, or a {@link PayloadValidationException} naming the field that does not read. */
    private Object payload(TaskDefinition task, @Nullable String text) {
        if (text == null || text.isBlank()) {
            throw new PayloadValidationException(task.id(), List.of("payload: must not be blank"));
        }
        Object typed;
        try {
            typed = jsonMapper
                    .readerFor(jsonMapper.constructType(task.payloadType()))
                    .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readValue(text);
        } catch (StreamReadException ex) {
            TokenStreamLocation at = ex.getLocation();
            String where = (at == null) ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new PayloadValidationException(
                    task.id(), List.of("payload: is not JSON" + where + ": " + ex.getOriginalMessage()));
        } catch (JacksonException ex) {
            throw new PayloadValidationException(task.id(), List.of(path(ex) + ": " + ex.getOriginalMessage()));
        }
        if (typed == null) {
            throw new PayloadValidationException(task.id(), List.of("payload: must not be null"));
        }
        return typed;
    }

    /** {@code payload.items[2].quantity}: where in the payload reading failed. */
    private static String path(JacksonException ex) {
        StringBuilder path = new StringBuilder("payload");
        for (JacksonException.Reference reference : ex.getPath()) {
            if (reference.getPropertyName() != null) {
                path.append('.').append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static @Nullable Duration delay(@Nullable String delay) {
        if (delay == null || delay.isBlank()) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(delay.trim());
        } catch (IllegalArgumentException ex) {
            throw new ConfigurationInvalidException(
                    "delay", "'" + delay + "' is not a duration such as 30s, 5m or PT1H");
        }
    }

    private static @Nullable String blankToNull(@Nullable String value) {
        return (value == null || value.isBlank()) ? null : value;
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

    /**
     * The body of a trigger from the page.
     *
     * @param payloadText the payload as JSON text, as typed
     * @param idempotencyKey overrides the task's resolver when not blank
     * @param delay how long after the trigger the run may start ({@code 30s}, {@code 5m}, {@code PT1H}), or none
     */
    record TriggerBody(
            @Nullable String payloadText,
            @Nullable String idempotencyKey,
            @Nullable String delay) {}

    /** What a trigger from the page did, and the run it created or returned (its values masked, S-CO-13). */
    record Triggered(TriggerOutcome outcome, Run run) {}

    /** The answer to a key reset; {@code reset} is false when the key had no retained owner. */
    record KeyReset(String taskId, String key, boolean reset) {}
}

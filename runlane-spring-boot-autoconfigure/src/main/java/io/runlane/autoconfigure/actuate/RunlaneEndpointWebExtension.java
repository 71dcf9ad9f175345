package io.runlane.autoconfigure.actuate;

import io.runlane.RunlaneException;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Gives the write operations of {@link RunlaneEndpoint} HTTP statuses: an unknown run or task answers 404, an action
 * the run's or key's state does not allow (a retry of a run that did not fail, a reset of an active owner, a stored
 * payload that is no longer valid) answers 409, each with a body naming the error {@code code} and its message.
 * Malformed input still answers 400. Reads and actions mask payloads unless
 * {@code management.endpoint.runlane.show-values} allows this request to see them.
 */
@EndpointWebExtension(endpoint = RunlaneEndpoint.class)
public final class RunlaneEndpointWebExtension {

    static final int STATUS_CONFLICT = 409;

    private final RunlaneEndpoint endpoint;

    private final Show showValues;

    private final Set<String> roles;

    public RunlaneEndpointWebExtension(RunlaneEndpoint endpoint) {
        this(endpoint, Show.NEVER, Set.of());
    }

    /** {@code showValues} and {@code roles} decide, per request, whether payloads are shown unmasked. */
    public RunlaneEndpointWebExtension(RunlaneEndpoint endpoint, Show showValues, Set<String> roles) {
        this.endpoint = endpoint;
        this.showValues = showValues;
        this.roles = Set.copyOf(roles);
    }

    /** See {@link RunlaneEndpoint#runs}; payloads masked unless this request may see them. */
    @ReadOperation
    public WebEndpointResponse<RunlaneEndpoint.RunsDescriptor> runs(
            SecurityContext securityContext,
            @Selector String runs,
            String @Nullable [] status,
            String @Nullable [] task,
            String @Nullable [] queue,
            String @Nullable [] failureCode,
            String @Nullable [] source,
            @Nullable String schedule,
            @Nullable Integer minPriority,
            @Nullable Integer maxPriority,
            @Nullable String failureMessagePrefix,
            @Nullable String idempotencyKeyPrefix,
            @Nullable String singletonKeyPrefix,
            @Nullable Integer limit,
            @Nullable String cursor) {
        RunlaneEndpoint.RunsFilter filter = new RunlaneEndpoint.RunsFilter(
                source,
                schedule,
                minPriority,
                maxPriority,
                failureMessagePrefix,
                idempotencyKeyPrefix,
                singletonKeyPrefix);
        return found(
                endpoint.runs(runs, status, task, queue, failureCode, filter, limit, cursor, shown(securityContext)));
    }

    /** See {@link RunlaneEndpoint#run}; the payload masked unless this request may see it. */
    @ReadOperation
    public WebEndpointResponse<RunlaneEndpoint.RunDescriptor> run(
            SecurityContext securityContext, @Selector String runs, @Selector String runId) {
        return found(endpoint.run(runs, runId, shown(securityContext)));
    }

    /** See {@link RunlaneEndpoint#runAction}. */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> runAction(
            SecurityContext securityContext,
            @Selector String runs,
            @Selector String runId,
            @Selector String action,
            @Nullable String reason) {
        return respond(() -> endpoint.runAction(runs, runId, action, reason, shown(securityContext)));
    }

    private boolean shown(SecurityContext securityContext) {
        return showValues.isShown(securityContext, roles);
    }

    private static <T> WebEndpointResponse<T> found(@Nullable T body) {
        return body != null
                ? new WebEndpointResponse<>(body)
                : new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }

    /** See {@link RunlaneEndpoint#idempotencyKeys}. */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> idempotencyKeys(
            @Selector String idempotencyKeys, @Selector String action, String taskId, String key) {
        return respond(() -> endpoint.idempotencyKeys(idempotencyKeys, action, taskId, key));
    }

    /** See {@link RunlaneEndpoint#prune}. */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> prune(
            @Selector String prune, String olderThan, String @Nullable [] statuses, @Nullable Integer maxRuns) {
        return respond(() -> endpoint.prune(prune, olderThan, statuses, maxRuns));
    }

    private static WebEndpointResponse<OperationResponseBody> respond(Supplier<OperationResponseBody> operation) {
        try {
            return new WebEndpointResponse<>(operation.get());
        } catch (RunlaneException ex) {
            return new WebEndpointResponse<>(new Failure(ex.code(), String.valueOf(ex.getMessage())), status(ex));
        }
    }

    private static int status(RunlaneException ex) {
        return switch (ex.code()) {
            case "run_not_found", "task_not_found" -> WebEndpointResponse.STATUS_NOT_FOUND;
            default -> STATUS_CONFLICT;
        };
    }

    /**
     * Why an operation was refused.
     *
     * @param code the {@link RunlaneException#code()}
     * @param message the exception's message
     */
    public record Failure(String code, String message) implements OperationResponseBody {}
}

package io.runlane.autoconfigure.actuate;

import io.runlane.RunlaneException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Gives the write operations of {@link RunlaneEndpoint} HTTP statuses: an unknown run or task answers 404, an action
 * the run's or key's state does not allow (a retry of a run that did not fail, a reset of an active owner, a stored
 * payload that is no longer valid) answers 409, each with a body naming the error {@code code} and its message.
 * Malformed input still answers 400, and reads are the endpoint's own.
 */
@EndpointWebExtension(endpoint = RunlaneEndpoint.class)
public final class RunlaneEndpointWebExtension {

    static final int STATUS_CONFLICT = 409;

    private final RunlaneEndpoint endpoint;

    public RunlaneEndpointWebExtension(RunlaneEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** See {@link RunlaneEndpoint#runAction}. */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> runAction(
            @Selector String runs, @Selector String runId, @Selector String action, @Nullable String reason) {
        return respond(() -> endpoint.runAction(runs, runId, action, reason));
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

package io.runlane.autoconfigure.actuate;

import io.runlane.RunlaneException;
import io.runlane.autoconfigure.actuate.RunlaneEndpointWebExtension.Failure;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Gives the write operations of {@link RunlaneSchedulesEndpoint} HTTP statuses: an unknown schedule or task answers
 * 404, an invalid schedule 400, a run-time change of a declared schedule 409, each with a body naming the error
 * {@code code} and its message.
 */
@EndpointWebExtension(endpoint = RunlaneSchedulesEndpoint.class)
public final class RunlaneSchedulesEndpointWebExtension {

    private final RunlaneSchedulesEndpoint endpoint;

    public RunlaneSchedulesEndpointWebExtension(RunlaneSchedulesEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** See {@link RunlaneSchedulesEndpoint#action}. */
    @WriteOperation
    public WebEndpointResponse<Object> action(@Selector String id, @Selector String action) {
        return respond(() -> endpoint.action(id, action));
    }

    /** See {@link RunlaneSchedulesEndpoint#upsert}. */
    @WriteOperation
    public WebEndpointResponse<Object> upsert(
            @Selector String id,
            String taskId,
            @Nullable String cron,
            @Nullable String every,
            @Nullable String zone,
            @Nullable String payload,
            @Nullable String overlap,
            @Nullable String catchUp) {
        return respond(() -> endpoint.upsert(id, taskId, cron, every, zone, payload, overlap, catchUp));
    }

    private static WebEndpointResponse<Object> respond(Supplier<Object> operation) {
        try {
            return new WebEndpointResponse<>(operation.get());
        } catch (RunlaneException ex) {
            return new WebEndpointResponse<>(new Failure(ex.code(), String.valueOf(ex.getMessage())), status(ex));
        }
    }

    private static int status(RunlaneException ex) {
        return switch (ex.code()) {
            case "schedule_not_found", "task_not_found" -> WebEndpointResponse.STATUS_NOT_FOUND;
            case "schedule_invalid", "invalid_key", "payload_invalid" -> WebEndpointResponse.STATUS_BAD_REQUEST;
            default -> RunlaneEndpointWebExtension.STATUS_CONFLICT;
        };
    }
}

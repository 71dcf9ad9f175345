package io.runlane;

import java.util.Objects;

/**
 * One item of a batch trigger ({@link RunlaneTemplate#triggerAll}).
 *
 * @param taskId the task id
 * @param payload the payload, an instance of the task's payload type
 * @param options per-call overrides
 */
public record TriggerRequest(String taskId, Object payload, TriggerOptions options) {

    public TriggerRequest {
        Objects.requireNonNull(options, "options");
    }

    public static TriggerRequest of(String taskId, Object payload) {
        return new TriggerRequest(taskId, payload, TriggerOptions.none());
    }

    public static TriggerRequest of(String taskId, Object payload, TriggerOptions options) {
        return new TriggerRequest(taskId, payload, options);
    }
}

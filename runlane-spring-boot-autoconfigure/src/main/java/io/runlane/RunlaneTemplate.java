package io.runlane;

import java.util.List;

/**
 * The entry point for producers: triggers runs and gives access to the operator APIs.
 *
 * <p>A trigger joins the caller's Spring transaction when one is active, so the run becomes visible to workers only
 * when that transaction commits (S-TR-3). Without one, a created run costs one database round trip.
 */
public interface RunlaneTemplate {

    /** Triggers a run of the task with this id, using the task's key resolvers. */
    default TriggerResult trigger(String taskId, Object payload) {
        return trigger(taskId, payload, TriggerOptions.none());
    }

    /** Triggers a run of the task with this id; non-null options override the task's resolvers field by field. */
    TriggerResult trigger(String taskId, Object payload, TriggerOptions options);

    /** Triggers a run of the task implemented by this class (a {@link TaskHandler} or a {@link TaskFunction}). */
    default <P> TriggerResult trigger(Class<? extends TaskKeys<P>> task, P payload) {
        return trigger(task, payload, TriggerOptions.none());
    }

    /** Triggers a run of the task implemented by this class, with per-call overrides. */
    <P> TriggerResult trigger(Class<? extends TaskKeys<P>> task, P payload, TriggerOptions options);

    /**
     * Triggers every request in one transaction. Results come back in input order; requests that share an
     * idempotency key resolve to one owner (S-TR-5). If any request is invalid, nothing is written.
     */
    List<TriggerResult> triggerAll(List<TriggerRequest> requests);

    /** Reads and operates on runs. */
    RunOperations runs();

    /** Operates on idempotency key ownership. */
    IdempotencyKeyOperations idempotencyKeys();

    /** Reads and operates on schedules (S-SC-5). */
    ScheduleOperations schedules();
}

package io.runlane;

/** What a {@link RunEvent} records (S-RL-2). */
public enum RunEventType {
    CREATED,
    CLAIMED,
    SUCCEEDED,
    RETRY_SCHEDULED,
    RELEASED,
    FAILED,
    CANCELLATION_REQUESTED,
    CANCELLED,
    LEASE_EXPIRED,
    IDEMPOTENCY_KEY_RESET,
    /**
     * A worker gave a claimed run back before its handler started (it was stopping, or part of its poll failed):
     * the run is waiting again and the claim's attempt is not counted (S-EX-17).
     */
    HANDED_BACK,
    /** The run was parked: a durable sleep or a wait for another run (S-ST-7, S-RS-4). */
    WAITING,
    /** A durable step recorded its result (S-ST-6); the detail names the step and its occurrence. */
    STEP_COMPLETED,
    /** A handler consumed a signal in {@code awaitSignal} (S-SG-4); the detail names the signal and its id. */
    SIGNAL_CONSUMED,
    /**
     * An operator put a {@code FAILED} or {@code CANCELLED} run back to {@code QUEUED} in place (S-RV-1); the actor
     * says who, the detail which status it left.
     */
    RESUMED,
    /** A trigger folded into this pending debounced run (S-DB-6); the detail says when the run is now due. */
    DEBOUNCED
}

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
    IDEMPOTENCY_KEY_RESET
}

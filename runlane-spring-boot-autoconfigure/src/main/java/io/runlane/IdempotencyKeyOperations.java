package io.runlane;

/** Operator actions on idempotency key ownership. */
public interface IdempotencyKeyOperations {

    /**
     * Clears a retained terminal owner so the next trigger creates a new run (S-IK-8). Returns {@code false} when the
     * key has no owner (including an expired retention), fails with {@link IdempotencyKeyActiveException} when the
     * owner is still active, and never starts a run.
     */
    boolean reset(String taskId, String key);
}

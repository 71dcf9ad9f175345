package io.runlane;

/** Operator actions on idempotency key ownership. */
public interface IdempotencyKeyOperations {

    /**
     * Clears a retained terminal owner so the next trigger creates a new run (S-IK-8). Returns {@code false} when the
     * key has no owner (including an expired retention), fails with {@link IdempotencyKeyActiveException} when the
     * owner is still active, and never starts a run. A key whose owner run no longer exists (deleted by hand) is
     * freed and reported with {@code true} (S-IK-13).
     */
    boolean reset(String taskId, String key);
}

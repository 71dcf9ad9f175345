package io.runlane;

import java.util.UUID;

/** An idempotency key cannot be reset while its owner is active (S-IK-8); nothing was changed. */
public class IdempotencyKeyActiveException extends RunlaneException {

    private final UUID ownerRunId;

    public IdempotencyKeyActiveException(String taskId, String key, UUID ownerRunId) {
        super(
                "idempotency_key_active",
                "Idempotency key '" + key + "' of task '" + taskId + "' is owned by active run " + ownerRunId);
        this.ownerRunId = ownerRunId;
    }

    /** The active run that owns the key. */
    public UUID ownerRunId() {
        return ownerRunId;
    }
}

package io.runlane;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** Reads runs of the configured environment (S-OP-1). */
public interface RunOperations {

    /** The run with this id, or empty when there is none in this environment. */
    Optional<Run> get(UUID runId);

    /** The run's events in sequence order; fails with {@link RunNotFoundException} for an unknown run. */
    List<RunEvent> events(UUID runId);

    /**
     * An active run of the task holding the given idempotency key or singleton key (at least one must be given).
     * Advisory: the answer may be stale by the time it is used; use a trigger to act on it atomically.
     */
    Optional<Run> findActive(String taskId, @Nullable String idempotencyKey, @Nullable String singletonKey);

    /**
     * The current owner of an idempotency key, active or still retained, exactly as a duplicate trigger would
     * return it (S-IK-2, S-IK-3, S-IK-10).
     */
    Optional<Run> findCurrent(String taskId, String idempotencyKey);

    /**
     * Cancels a run (S-CA-1..4): a waiting run becomes {@code CANCELLED} at once; a running one becomes {@code
     * CANCELLATION_REQUESTED} and its handler sees that through {@link RunContext#isCancellationRequested()} within
     * one heartbeat; a terminal run is returned unchanged. The reason is recorded in the run's event.
     *
     * @throws RunNotFoundException when there is no such run in this environment
     */
    Run cancel(UUID runId, @Nullable String reason);
}

package io.runlane.internal.maintenance;

import io.runlane.RunStatus;
import io.runlane.internal.jdbc.RunPruner;
import java.time.Duration;

/**
 * Prunes the runs of one status, batch after batch, each starting where the previous one stopped ({@link
 * RunPruner.Cursor}), for the operator's prune and the automatic job alike.
 */
public final class PrunePass {

    /** What a pass did: runs deleted, batches run, and whether it found nothing more to delete. */
    public record Result(long deleted, int batches, boolean complete) {}

    private final RunPruner pruner;

    public PrunePass(RunPruner pruner) {
        this.pruner = pruner;
    }

    /**
     * Deletes runs of {@code status} older than {@code olderThan} until none is left or {@code maxRuns} were deleted.
     */
    public Result prune(RunStatus status, Duration olderThan, int batchSize, long maxRuns) {
        return prune(status, olderThan, batchSize, false, maxRuns, false, 0);
    }

    /**
     * Deletes runs of {@code status} older than {@code olderThan} until none is left or the deadline ({@link
     * System#nanoTime}) passed; runs whose idempotency retention has not expired are kept (the automatic job).
     */
    public Result pruneRespectingRetention(RunStatus status, Duration olderThan, int batchSize, long deadlineNanos) {
        return prune(status, olderThan, batchSize, true, Long.MAX_VALUE, true, deadlineNanos);
    }

    private Result prune(
            RunStatus status,
            Duration olderThan,
            int batchSize,
            boolean respectRetention,
            long maxRuns,
            boolean hasDeadline,
            long deadlineNanos) {
        RunPruner.Cursor cursor = RunPruner.Cursor.START;
        long deleted = 0;
        int batches = 0;
        while (deleted < maxRuns && (!hasDeadline || System.nanoTime() - deadlineNanos < 0)) {
            int size = (int) Math.min(batchSize, maxRuns - deleted);
            RunPruner.Batch batch = pruner.pruneBatch(status, olderThan, size, respectRetention, cursor);
            batches++;
            deleted += batch.deleted();
            cursor = batch.next();
            if (batch.deleted() < size) {
                return new Result(deleted, batches, true);
            }
        }
        return new Result(deleted, batches, false);
    }
}

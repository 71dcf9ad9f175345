package io.runlane.internal.maintenance;

import io.runlane.RunStatus;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Prunes the runs of one status, batch after batch, each starting where the previous one stopped ({@link
 * RunPruner.Cursor}), for the operator's prune and the automatic job alike.
 *
 * <p>S-OP-11: the pass paces itself by how long its batches take ({@link PrunePacing}): it rests after each batch as
 * long as the batch took, and sizes batches to take a few milliseconds, never more than the requested batch size.
 * An interrupt while resting ends the pass early, which then reports that it did not reach the end.
 */
public final class PrunePass {

    /**
     * What a pass did.
     *
     * @param deleted runs deleted
     * @param batches batches run
     * @param scanned runs read
     * @param skipped eligible runs left because another transaction held them (an indication: a run may be counted in
     *     several batches)
     * @param reachedEnd whether the pass read every matching run (it was not stopped by a bound or deadline)
     * @param earliestRetainedUntil the earliest idempotency retention among the runs kept for it, if any
     * @param end the last run read: where a later pass may resume
     */
    public record Result(
            long deleted,
            int batches,
            long scanned,
            long skipped,
            boolean reachedEnd,
            @Nullable OffsetDateTime earliestRetainedUntil,
            RunPruner.Cursor end) {

        /** S-OP-8: nothing matching is left behind: the pass read to the end and skipped no locked run. */
        public boolean complete() {
            return reachedEnd && skipped == 0;
        }
    }

    private final RunPruner pruner;

    private final IntFunction<PrunePacing> pacings;

    public PrunePass(RunPruner pruner) {
        this(pruner, PrunePacing::new);
    }

    PrunePass(RunPruner pruner, IntFunction<PrunePacing> pacings) {
        this.pruner = pruner;
        this.pacings = pacings;
    }

    /**
     * Deletes runs of {@code status} older than {@code olderThan} until none is left or {@code maxRuns} were deleted.
     */
    public Result prune(RunStatus status, Duration olderThan, int batchSize, long maxRuns) {
        return prune(status, olderThan, batchSize, false, maxRuns, false, 0, RunPruner.Cursor.START);
    }

    /**
     * Deletes runs of {@code status} older than {@code olderThan} that come after {@code from}, until none is left or
     * the deadline ({@link System#nanoTime}) passed; runs whose idempotency retention has not expired are kept (the
     * automatic job).
     */
    public Result pruneRespectingRetention(
            RunStatus status, Duration olderThan, int batchSize, long deadlineNanos, RunPruner.Cursor from) {
        return prune(status, olderThan, batchSize, true, Long.MAX_VALUE, true, deadlineNanos, from);
    }

    private Result prune(
            RunStatus status,
            Duration olderThan,
            int batchSize,
            boolean respectRetention,
            long maxRuns,
            boolean hasDeadline,
            long deadlineNanos,
            RunPruner.Cursor from) {
        RunPruner.Cursor cursor = from;
        long deleted = 0;
        long scanned = 0;
        long skipped = 0;
        OffsetDateTime earliestRetainedUntil = null;
        int batches = 0;
        boolean reachedEnd = false;
        PrunePacing pacing = pacings.apply(batchSize);
        while (deleted < maxRuns && (!hasDeadline || System.nanoTime() - deadlineNanos < 0)) {
            int size = (int) Math.min(pacing.startBatch(), maxRuns - deleted);
            RunPruner.Batch batch = pruner.pruneBatch(status, olderThan, size, respectRetention, cursor);
            batches++;
            deleted += batch.deleted();
            scanned += batch.scanned();
            skipped += batch.skipped();
            earliestRetainedUntil = earliest(earliestRetainedUntil, batch.earliestRetainedUntil());
            if (batch.deleted() == 0 && batch.scanned() == size && batch.next().equals(cursor)) {
                // A whole batch of runs finished at the cursor's time and none could be deleted (locked, or kept
                // for retention): move past that time, and count the unread runs of that time as skipped.
                cursor = cursor.past();
                skipped++;
            } else {
                cursor = batch.next();
            }
            if (batch.scanned() < size) {
                reachedEnd = true;
                break;
            }
            if (!rest(pacing, deleted < maxRuns, batch.work())) {
                break;
            }
        }
        return new Result(deleted, batches, scanned, skipped, reachedEnd, earliestRetainedUntil, cursor);
    }

    /** Rests after a batch (S-OP-11); returns {@code false} if interrupted meanwhile, which ends the pass. */
    private static boolean rest(PrunePacing pacing, boolean more, Duration work) {
        try {
            pacing.batchEnded(more, work.toNanos());
            return true;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static @Nullable OffsetDateTime earliest(@Nullable OffsetDateTime a, @Nullable OffsetDateTime b) {
        return a == null ? b : b == null || a.isBefore(b) ? a : b;
    }
}

package io.runlane.internal.maintenance;

import io.runlane.Run;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.worker.AttemptOutcomes;
import java.time.Duration;
import java.util.Optional;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Ends runs whose handler ignores a cancellation (S-CA-5):
 *
 * <ol>
 *   <li>find runs in {@code CANCELLATION_REQUESTED} whose cancellation was requested more than {@code
 *       runlane.worker.cancellation-grace} ago, by the database clock, in a bounded batch;
 *   <li>for each, one statement fenced by the claim's token and by the status makes it {@code CANCELLED}, so its
 *       keys and its slot of the queue's concurrency limit are free and the handler's late outcome is refused. An
 *       attempt that ended meanwhile wins; several instances change each run once.
 * </ol>
 *
 * The worker's thread is not stopped: the handler keeps its worker slot until it returns, and the attempt keeps its
 * lease, which the worker's heartbeats extend meanwhile. A successor waiting for the run (S-CP-3) therefore waits
 * until the handler returned or its worker stopped heartbeating and the lease expired.
 */
final class CancellationGrace {

    private static final Log logger = LogFactory.getLog(CancellationGrace.class);

    private final ExpiredLeases runs;

    private final AttemptOutcomes outcomes;

    private final Duration grace;

    private final int batchSize;

    private final EngineListener listener;

    CancellationGrace(
            ExpiredLeases runs, AttemptOutcomes outcomes, Duration grace, int batchSize, EngineListener listener) {
        this.runs = runs;
        this.outcomes = outcomes;
        this.grace = grace;
        this.batchSize = batchSize;
        this.listener = listener;
    }

    /** Cancels one batch of runs past the grace; returns how many runs this call changed. */
    public int cancelOverdue() {
        int cancelled = 0;
        for (ClaimedRun overdue : runs.findOverdueCancellations(grace, batchSize)) {
            String detail = "the handler did not stop within the cancellation grace of " + grace;
            Optional<Run> ended =
                    outcomes.cancelIfStillRequested(overdue.run().id(), overdue.fencingToken(), "maintenance", detail);
            if (ended.isPresent()) {
                listener.runEnded(ended.get().id(), ended.get().status());
                cancelled++;
                logger.warn("Cancelled run " + overdue.run().id() + " of task '"
                        + overdue.run().taskId()
                        + "': its handler ignored the cancellation for longer than " + grace
                        + "; its late outcome will be refused, and a run superseding it waits until its handler"
                        + " returns");
            }
        }
        return cancelled;
    }
}

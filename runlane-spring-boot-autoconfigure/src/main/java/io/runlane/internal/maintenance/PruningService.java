package io.runlane.internal.maintenance;

import io.runlane.RunStatus;
import io.runlane.internal.EngineListener;
import io.runlane.internal.jdbc.RunPruner;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The automatic pruning job (S-OP-4, S-IK-9). Every interval (jittered) it deletes, per terminal status, runs older
 * than that status's retention, in batches, until nothing is left or the tick's time budget is spent; runs whose
 * idempotency retention is still running are kept. Then it reclaims expired ownership rows. Batches skip locked
 * rows, so any number of instances may prune at once.
 */
public final class PruningService extends PeriodicJob {

    private static final Log logger = LogFactory.getLog(PruningService.class);

    private final RunPruner pruner;

    private final PrunePass prunePass;

    private final Map<RunStatus, Duration> retention;

    private final int batchSize;

    private final Duration timeBudget;

    private final EngineListener listener;

    private volatile @Nullable Instant lastRun;

    private volatile long lastPruned;

    public PruningService(
            RunPruner pruner,
            Map<RunStatus, Duration> retention,
            Duration interval,
            int batchSize,
            Duration timeBudget,
            EngineListener listener) {
        super("pruning", interval);
        this.pruner = pruner;
        this.prunePass = new PrunePass(pruner);
        this.retention = Map.copyOf(retention);
        this.batchSize = batchSize;
        this.timeBudget = timeBudget;
        this.listener = listener;
    }

    /** When the job last completed a tick, if ever. */
    public @Nullable Instant lastRun() {
        return lastRun;
    }

    /** Runs deleted by the last tick. */
    public long lastPruned() {
        return lastPruned;
    }

    @Override
    protected void runOnce() {
        pruneOnce();
    }

    /** One tick: prunes every status within the time budget; returns the runs deleted. */
    public long pruneOnce() {
        long deadline = System.nanoTime() + timeBudget.toNanos();
        long deleted = 0;
        for (RunStatus status : List.of(RunStatus.SUCCEEDED, RunStatus.CANCELLED, RunStatus.FAILED)) {
            Duration age = retention.get(status);
            if (age == null) {
                continue;
            }
            deleted += prunePass
                    .pruneRespectingRetention(status, age, batchSize, deadline)
                    .deleted();
        }
        int keys;
        do {
            keys = pruner.cleanExpiredKeys(batchSize);
        } while (keys == batchSize && System.nanoTime() < deadline);
        lastPruned = deleted;
        lastRun = Instant.now();
        if (deleted > 0) {
            listener.runsPruned(deleted, true);
            logger.info("Pruned " + deleted + " finished runs");
        }
        return deleted;
    }
}

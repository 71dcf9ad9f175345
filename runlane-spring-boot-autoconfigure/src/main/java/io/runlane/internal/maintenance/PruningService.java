package io.runlane.internal.maintenance;

import io.runlane.RunStatus;
import io.runlane.internal.EngineListener;
import io.runlane.internal.jdbc.RunPruner;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The automatic pruning job (S-OP-4, S-IK-9). Every interval (jittered) it deletes, per terminal status, runs older
 * than that status's retention, in batches, until nothing is left or the tick's time budget is spent; runs whose
 * idempotency retention is still running are kept. Then it reclaims expired ownership rows. Batches skip locked
 * rows, so any number of instances may prune at once.
 */
public final class PruningService implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(PruningService.class);

    private final RunPruner pruner;

    private final Map<RunStatus, Duration> retention;

    private final Duration interval;

    private final int batchSize;

    private final Duration timeBudget;

    private final EngineListener listener;

    private volatile @Nullable ScheduledExecutorService scheduler;

    private volatile @Nullable Instant lastRun;

    private volatile long lastPruned;

    public PruningService(
            RunPruner pruner,
            Map<RunStatus, Duration> retention,
            Duration interval,
            int batchSize,
            Duration timeBudget,
            EngineListener listener) {
        this.pruner = pruner;
        this.retention = Map.copyOf(retention);
        this.interval = interval;
        this.batchSize = batchSize;
        this.timeBudget = timeBudget;
        this.listener = listener;
    }

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-pruning-");
        threads.setDaemon(true);
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(threads);
        long millis = interval.toMillis();
        long initialDelay = ThreadLocalRandom.current().nextLong(millis / 2, millis + 1);
        started.scheduleWithFixedDelay(this::tick, initialDelay, millis, TimeUnit.MILLISECONDS);
        scheduler = started;
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }

    /** When the job last completed a tick, if ever. */
    public @Nullable Instant lastRun() {
        return lastRun;
    }

    /** Runs deleted by the last tick. */
    public long lastPruned() {
        return lastPruned;
    }

    private void tick() {
        try {
            pruneOnce();
        } catch (Throwable ex) {
            // A scheduled task that throws is never run again; keep the job alive and report at the next tick.
            logger.warn("Pruning failed; retrying at the next tick", ex);
        }
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
            int batch;
            do {
                batch = pruner.pruneBatch(List.of(status), age, batchSize, true);
                deleted += batch;
            } while (batch == batchSize && System.nanoTime() < deadline);
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

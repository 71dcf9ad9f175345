package io.runlane.internal.maintenance;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.SqlTemplate;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The automatic pruning job (S-OP-4, S-IK-9). Every interval (jittered) it deletes, per terminal status, runs older
 * than that status's retention, in batches paced by their measured duration (S-OP-11, {@link PrunePass}), until
 * nothing is left or the tick's time budget, rests included, is spent; runs whose idempotency retention is still
 * running are kept. Batches skip locked
 * rows, so any number of instances may prune at once.
 *
 * <p>S-OP-10: each status's pass resumes where the previous tick's stopped ({@link Position}), so runs kept for their
 * idempotency retention are not read again on every tick. A pass that reached the end starts again from the oldest
 * run only once something behind its cursor may have become prunable: the earliest retention it kept has passed
 * (compared with this instance's clock, so clock skew only delays it), or it skipped runs another transaction held.
 */
public final class PruningService extends PeriodicJob {

    private static final Log logger = LogFactory.getLog(PruningService.class);

    private final PrunePass prunePass;

    private final Map<RunStatus, Duration> retention;

    private final int batchSize;

    private final Duration timeBudget;

    private final EngineListener listener;

    private final @Nullable RateLimitCreationPruner rateLimitCreations;

    /**
     * Where the job stands in one status: the cursor to resume from, the earliest retention kept behind it, whether
     * runs behind it were skipped because locked, and whether the pass reached the end.
     */
    record Position(
            RunPruner.Cursor cursor,
            @Nullable OffsetDateTime earliestRetainedUntil,
            boolean skippedBehind,
            boolean reachedEnd) {

        static final Position START = new Position(RunPruner.Cursor.START, null, false, false);

        /** A finished pass starts again from the oldest run once a run behind it may have become prunable. */
        Position nextStart(Instant now) {
            boolean revisit = skippedBehind
                    || (earliestRetainedUntil != null
                            && !earliestRetainedUntil.toInstant().isAfter(now));
            return reachedEnd && revisit ? START : this;
        }

        /** A pass that reached the end read every run of its last finish time, so the next one starts after it. */
        Position after(PrunePass.Result pass) {
            return new Position(
                    pass.reachedEnd() ? pass.end().past() : pass.end(),
                    PrunePass.earliest(earliestRetainedUntil, pass.earliestRetainedUntil()),
                    skippedBehind || pass.skipped() > 0,
                    pass.reachedEnd());
        }
    }

    private final Map<RunStatus, Position> positions = new ConcurrentHashMap<>();

    private volatile long lastScanned;

    private volatile @Nullable Instant lastRun;

    private volatile long lastPruned;

    public PruningService(
            RunPruner pruner,
            Map<RunStatus, Duration> retention,
            Duration interval,
            int batchSize,
            Duration timeBudget,
            EngineListener listener) {
        this(pruner, retention, interval, batchSize, timeBudget, listener, null);
    }

    /**
     * Also deletes the rate limits' expired creations on every tick, after the runs (S-RT-5): those older than
     * {@code longestRateLimitPeriod}, the longest period a declared task's rate limit has; {@code null} when no task
     * declares one (a removed task's rows then stay until one does).
     */
    public PruningService(
            RunPruner pruner,
            Map<RunStatus, Duration> retention,
            Duration interval,
            int batchSize,
            Duration timeBudget,
            EngineListener listener,
            JdbcClient jdbc,
            SqlTemplate sql,
            String environment,
            @Nullable Duration longestRateLimitPeriod) {
        this(
                pruner,
                retention,
                interval,
                batchSize,
                timeBudget,
                listener,
                longestRateLimitPeriod == null
                        ? null
                        : new RateLimitCreationPruner(jdbc, sql, environment, longestRateLimitPeriod));
    }

    private PruningService(
            RunPruner pruner,
            Map<RunStatus, Duration> retention,
            Duration interval,
            int batchSize,
            Duration timeBudget,
            EngineListener listener,
            @Nullable RateLimitCreationPruner rateLimitCreations) {
        super("pruning", interval);
        this.rateLimitCreations = rateLimitCreations;
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

    /** Finished runs the last tick read, deleted or kept. */
    public long lastScanned() {
        return lastScanned;
    }

    /** One tick: prunes every status within the time budget; returns the runs deleted. */
    public synchronized long pruneOnce() {
        long deadline = System.nanoTime() + timeBudget.toNanos();
        long deleted = 0;
        long scanned = 0;
        for (RunStatus status : List.of(RunStatus.SUCCEEDED, RunStatus.CANCELLED, RunStatus.FAILED)) {
            Duration age = retention.get(status);
            if (age == null) {
                continue;
            }
            Position start = positions.getOrDefault(status, Position.START).nextStart(Instant.now());
            PrunePass.Result pass =
                    prunePass.pruneRespectingRetention(status, age, batchSize, deadline, start.cursor());
            positions.put(status, start.after(pass));
            deleted += pass.deleted();
            scanned += pass.scanned();
        }
        if (rateLimitCreations != null) {
            rateLimitCreations.pruneExpired(batchSize, deadline);
        }
        lastScanned = scanned;
        lastPruned = deleted;
        lastRun = Instant.now();
        if (deleted > 0) {
            listener.runsPruned(deleted, true);
            logger.info("Pruned " + deleted + " finished runs");
        }
        return deleted;
    }
}

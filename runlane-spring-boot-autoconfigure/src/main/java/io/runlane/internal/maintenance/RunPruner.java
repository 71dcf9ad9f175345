package io.runlane.internal.maintenance;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.KeyOwnership;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Deletes finished runs in bounded batches (S-OP-3, S-OP-4, S-IK-9). One statement per batch:
 *
 * <ol>
 *   <li>read the next finished runs of one status older than the given age (the batch's window), at most one batch,
 *       from the index on {@code (status, finished_at)}, in finish order from the cursor: the finish time of the last
 *       run the previous batch read. Without the cursor every batch would walk again over the index
 *       entries of the runs the previous batches deleted, which stay in the index until vacuum. The automatic job
 *       marks runs whose idempotency retention is still running, which it keeps (S-IK-9);
 *   <li>lock the window's other runs with {@code FOR UPDATE SKIP LOCKED}, so that concurrent pruners never wait for
 *       each other, and delete their events, their steps (S-ST-6), their signals and the runs (a deleted run's key
 *       leaves the owners' index with it);
 *   <li>return how many runs the window held, how many were eligible and how many were deleted (the difference was
 *       skipped because another transaction held them, S-OP-8), the earliest retention it kept, the new cursor, and
 *       how long the statement worked in the database, which paces the pass (S-OP-11) without the round trip and the
 *       commit's flush (the clock is read in the last column, after the counts that make every deletion finish).
 * </ol>
 *
 * The window is read without locks, so a run skipped because it was locked is still counted and the cursor moves past
 * it: a pass reports it as incomplete instead of losing track of it. One status at a time, so that the index returns
 * the runs in finish order; with several statuses at once PostgreSQL would sort every finished run for each batch.
 *
 * Only finished runs are touched, which claims never lock, so pruning does not block them; the only shared rows are
 * holders whose retention has passed, which a trigger of their key may be releasing at that moment (S-IK-10).
 */
public final class RunPruner {

    private static final String PRUNE_BATCH = """
            WITH window_runs AS (
                SELECT r.id, r.finished_at,
                       CASE WHEN :respectRetention AND %1$s AND %2$s > statement_timestamp()
                            THEN %2$s END AS retained_until
                FROM {schema}.runs r
                WHERE r.environment = :environment AND r.finished_at IS NOT NULL AND r.status = :status
                  AND r.finished_at < statement_timestamp() - :olderThanMs * interval '1 millisecond'
                  AND r.finished_at >= :afterFinishedAt AND (NOT :exclusive OR r.finished_at > :afterFinishedAt)
                ORDER BY r.finished_at
                LIMIT :batchSize
            ), doomed AS (
                SELECT r.id FROM {schema}.runs r
                WHERE r.id IN (SELECT id FROM window_runs WHERE retained_until IS NULL)
                FOR UPDATE SKIP LOCKED
            ), deleted_events AS (
                DELETE FROM {schema}.run_events e USING doomed d WHERE e.run_id = d.id RETURNING e.run_id
            ), deleted_steps AS (
                DELETE FROM {schema}.run_steps s USING doomed d WHERE s.run_id = d.id RETURNING s.run_id
            ), deleted_signals AS (
                DELETE FROM {schema}.run_signals s USING doomed d WHERE s.run_id = d.id RETURNING s.run_id
            ), deleted_runs AS (
                DELETE FROM {schema}.runs r USING doomed d WHERE r.id = d.id RETURNING r.id
            )
            SELECT (SELECT count(*) FROM window_runs) AS scanned,
                   (SELECT count(*) FROM window_runs WHERE retained_until IS NULL) AS eligible,
                   (SELECT count(*) FROM deleted_runs) AS deleted,
                   (SELECT min(retained_until) FROM window_runs) AS earliest_retained_until,
                   (SELECT max(finished_at) FROM window_runs) AS last_finished_at,
                   (SELECT count(*) FROM deleted_events) + (SELECT count(*) FROM deleted_steps)
                       + (SELECT count(*) FROM deleted_signals) AS deleted_dependents,
                   extract(epoch FROM clock_timestamp() - statement_timestamp()) AS work_seconds
            """.formatted(KeyOwnership.holds("r"), KeyOwnership.retainedUntil("r"));

    private final JdbcClient jdbc;

    private final String environment;

    private final String pruneBatch;

    public RunPruner(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.pruneBatch = sql.format(PRUNE_BATCH);
    }

    /**
     * Where a pass over one status has got to: the finish time of the last run it read. Runs that finished earlier
     * were deleted, skipped because another transaction held them, or kept for their retention. Runs that finished
     * at that very time are read again by the next batch (several runs finish in one statement), unless the cursor is
     * {@code exclusive}: a pass moves past a time that a whole batch of undeletable runs shares.
     */
    public record Cursor(OffsetDateTime lastFinishedAt, boolean exclusive) {

        /** Before the oldest finished run. */
        public static final Cursor START = new Cursor(OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), false);

        /** The same time, excluding the runs that finished at it. */
        public Cursor past() {
            return new Cursor(lastFinishedAt, true);
        }
    }

    /**
     * One batch's result.
     *
     * @param scanned runs in the batch's window
     * @param deleted runs deleted
     * @param skipped eligible runs not deleted because another transaction held them
     * @param earliestRetainedUntil the earliest idempotency retention among the runs kept for it, if any
     * @param next where the next batch starts
     * @param work how long the statement worked in the database, without the round trip and the commit
     */
    public record Batch(
            int scanned,
            int deleted,
            int skipped,
            @Nullable OffsetDateTime earliestRetainedUntil,
            Cursor next,
            Duration work) {}

    /**
     * Deletes one batch of runs of {@code status} that come after the cursor.
     *
     * @param respectRetention whether to keep runs whose idempotency retention has not expired (automatic job)
     */
    public Batch pruneBatch(
            RunStatus status, Duration olderThan, int batchSize, boolean respectRetention, Cursor after) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("status", status.name(), Types.VARCHAR)
                .addValue("olderThanMs", olderThan.toMillis(), Types.BIGINT)
                .addValue("respectRetention", respectRetention, Types.BOOLEAN)
                .addValue("batchSize", batchSize, Types.INTEGER)
                .addValue("afterFinishedAt", after.lastFinishedAt(), Types.TIMESTAMP_WITH_TIMEZONE)
                .addValue("exclusive", after.exclusive(), Types.BOOLEAN);
        return jdbc.sql(pruneBatch)
                .paramSource(params)
                .query((rs, rowNum) -> {
                    OffsetDateTime last = rs.getObject("last_finished_at", OffsetDateTime.class);
                    int deleted = rs.getInt("deleted");
                    return new Batch(
                            rs.getInt("scanned"),
                            deleted,
                            rs.getInt("eligible") - deleted,
                            rs.getObject("earliest_retained_until", OffsetDateTime.class),
                            last == null ? after : new Cursor(last, false),
                            Duration.ofNanos((long) (rs.getDouble("work_seconds") * 1e9)));
                })
                .single();
    }
}

package io.runlane.internal.jdbc;

import io.runlane.RunStatus;
import java.sql.Types;
import java.time.Duration;
import java.util.Collection;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Deletes finished runs in bounded batches (S-OP-3, S-OP-4, S-IK-9). One statement per batch:
 *
 * <ol>
 *   <li>pick the oldest finished runs of the given statuses older than the given age, at most one batch, with
 *       {@code FOR UPDATE SKIP LOCKED} so that concurrent pruners take disjoint batches and never wait for each
 *       other; the automatic job also skips runs whose idempotency retention is still running (S-IK-9);
 *   <li>delete their idempotency rows (the key becomes free), their events, and the runs.
 * </ol>
 *
 * Only finished runs are touched, which triggers and claims never lock, so pruning does not block them; the only
 * shared rows are expired idempotency rows that a trigger may be taking over at that moment.
 */
public final class RunPruner {

    private static final String PRUNE_BATCH = """
            WITH doomed AS (
                SELECT r.id, r.environment, r.task_id, r.idempotency_key FROM {schema}.runs r
                WHERE r.environment = :environment AND r.finished_at IS NOT NULL AND r.status IN (:statuses)
                  AND r.finished_at < statement_timestamp() - :olderThanMs * interval '1 millisecond'
                  AND (NOT :respectRetention OR NOT EXISTS (
                        SELECT FROM {schema}.idempotency_keys k
                        WHERE k.environment = r.environment AND k.task_id = r.task_id
                          AND k.idempotency_key = r.idempotency_key AND k.run_id = r.id
                          AND k.retained_until > statement_timestamp()))
                ORDER BY r.finished_at
                LIMIT :batchSize
                FOR UPDATE SKIP LOCKED
            ), released_keys AS (
                DELETE FROM {schema}.idempotency_keys k USING doomed d
                WHERE k.environment = d.environment AND k.task_id = d.task_id AND k.idempotency_key = d.idempotency_key
                  AND k.run_id = d.id
            ), deleted_events AS (
                DELETE FROM {schema}.run_events e USING doomed d WHERE e.run_id = d.id
            ), deleted_runs AS (
                DELETE FROM {schema}.runs r USING doomed d WHERE r.id = d.id RETURNING r.id
            )
            SELECT count(*) FROM deleted_runs
            """;

    /** Expired retention rows are already treated as absent (S-IK-10); this only reclaims their space. */
    private static final String CLEAN_EXPIRED_KEYS = """
            WITH expired AS (
                SELECT environment, task_id, idempotency_key FROM {schema}.idempotency_keys
                WHERE environment = :environment AND retained_until <= statement_timestamp()
                LIMIT :batchSize
                FOR UPDATE SKIP LOCKED
            ), deleted AS (
                DELETE FROM {schema}.idempotency_keys k USING expired e
                WHERE k.environment = e.environment AND k.task_id = e.task_id AND k.idempotency_key = e.idempotency_key
                  AND k.retained_until <= statement_timestamp()
                RETURNING 1
            )
            SELECT count(*) FROM deleted
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String pruneBatch;

    private final String cleanExpiredKeys;

    public RunPruner(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.pruneBatch = sql.format(PRUNE_BATCH);
        this.cleanExpiredKeys = sql.format(CLEAN_EXPIRED_KEYS);
    }

    /**
     * Deletes one batch; returns how many runs it deleted.
     *
     * @param respectRetention whether to keep runs whose idempotency retention has not expired (automatic job)
     */
    public int pruneBatch(Collection<RunStatus> statuses, Duration olderThan, int batchSize, boolean respectRetention) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue(
                        "statuses",
                        statuses.stream().map(RunStatus::name).sorted().toList())
                .addValue("olderThanMs", olderThan.toMillis(), Types.BIGINT)
                .addValue("respectRetention", respectRetention, Types.BOOLEAN)
                .addValue("batchSize", batchSize, Types.INTEGER);
        return jdbc.sql(pruneBatch).paramSource(params).query(Integer.class).single();
    }

    /** Deletes one batch of expired idempotency retention rows; returns how many. */
    public int cleanExpiredKeys(int batchSize) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("batchSize", batchSize, Types.INTEGER);
        return jdbc.sql(cleanExpiredKeys)
                .paramSource(params)
                .query(Integer.class)
                .single();
    }
}

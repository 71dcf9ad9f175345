package io.runlane.benchmarks;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Fills Runlane's tables with finished runs in one statement, as years of retained history would leave them: each a
 * {@code SUCCEEDED} run of {@link BenchmarkTasks#ORDER} holding its idempotency key for 30 days, and its two stored
 * events (claimed, succeeded; Runlane reads the creation event off the run's row). They finished one every 100 ms,
 * the newest two days ago, and are inserted oldest first, as history accumulates; their ids are time-ordered UUIDs
 * of version 7 like the ones Runlane generates (the low bits come from the row number, which is cheaper than random
 * bits and as unique within one fill).
 */
final class RetainedRuns {

    /** How long the keys are retained: 30 days, so none expires during a run. */
    private static final long KEY_TTL_MILLIS = 2_592_000_000L;

    private static final String INSERT = """
            WITH inserted AS (
                INSERT INTO %1$s.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                       idempotency_key_ttl_ms, attempts, max_attempts, run_at, created_at, updated_at,
                                       finished_at, last_event_seq, fencing_token)
                SELECT run_id, 'default', '%2$s', 'default', 'SUCCEEDED',
                       jsonb_build_object('orderId', ? || i), 'order.' || ? || i, %3$d, 1, 3,
                       finished_at - interval '1 second', finished_at - interval '1 second', finished_at, finished_at,
                       3, 1
                FROM (SELECT now() - interval '2 days' AS newest, ?::bigint AS total) fill,
                     generate_series(1, fill.total) i,
                     LATERAL (SELECT fill.newest - (fill.total - i) * interval '100 milliseconds' AS finished_at) t,
                     LATERAL (SELECT (lpad(to_hex(floor(extract(epoch FROM t.finished_at) * 1000)::bigint), 12, '0')
                                      || '7' || lpad(to_hex(i & 4095), 3, '0')
                                      || '8' || lpad(to_hex(i), 15, '0'))::uuid AS run_id) id
                RETURNING id, idempotency_key, run_at, finished_at
            ), events AS (
                INSERT INTO %1$s.run_events (run_id, seq, type, status, created_at, actor)
                SELECT id, e.seq, e.type, e.status, CASE e.seq WHEN 3 THEN finished_at ELSE run_at END,
                       CASE e.seq WHEN 2 THEN 'bench-worker' END
                FROM inserted,
                     (VALUES (2, 'CLAIMED', 'RUNNING'), (3, 'SUCCEEDED', 'SUCCEEDED'))
                         AS e(seq, type, status)
            )
            SELECT count(*) FROM inserted
            """;

    private final JdbcTemplate jdbc;

    private final String insert;

    RetainedRuns(JdbcTemplate jdbc, String schema) {
        this.jdbc = jdbc;
        this.insert = INSERT.formatted(schema, BenchmarkTasks.ORDER, KEY_TTL_MILLIS);
    }

    /** Inserts {@code count} finished runs whose order ids start with {@code prefix}. */
    void insert(int count, String prefix) {
        Long inserted = jdbc.queryForObject(insert, Long.class, prefix, prefix, count);
        if (inserted == null || inserted != count) {
            throw new IllegalStateException("Inserted " + inserted + " of " + count + " retained runs");
        }
    }
}

package io.runlane.benchmarks;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Fills Runlane's tables with finished runs in one statement, as years of retained history would leave them: each a
 * {@code SUCCEEDED} run of {@link BenchmarkTasks#ORDER} holding its idempotency key for 30 days, and its two stored
 * events (claimed, succeeded; Runlane reads the creation event off the run's row). They finished between two and a few days ago, one every 100 ms, and their ids are
 * time-ordered UUIDs of version 7 like the ones Runlane generates.
 */
final class RetainedRuns {

    private static final String INSERT = """
            WITH inserted AS (
                INSERT INTO %1$s.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                       idempotency_key_ttl_ms, attempts, max_attempts, run_at, created_at, updated_at,
                                       finished_at, last_event_seq, fencing_token)
                SELECT uuid_v7, 'default', '%2$s', 'default', 'SUCCEEDED',
                       jsonb_build_object('orderId', ? || i), 'order.' || ? || i, 2592000000, 1, 3,
                       finished_at - interval '1 second', finished_at - interval '1 second', finished_at, finished_at,
                       3, 1
                FROM generate_series(1, ?) i,
                     LATERAL (SELECT now() - interval '2 days' - i * interval '100 milliseconds' AS finished_at) t,
                     LATERAL (SELECT (lpad(to_hex(floor(extract(epoch FROM finished_at) * 1000)::bigint), 12, '0')
                                      || '7' || substr(md5(random()::text), 1, 3)
                                      || '8' || substr(md5(random()::text), 1, 15))::uuid AS uuid_v7) id
                RETURNING id, run_at, finished_at
            )
            INSERT INTO %1$s.run_events (run_id, seq, type, status, created_at, actor)
                SELECT id, e.seq, e.type, e.status, CASE e.seq WHEN 3 THEN finished_at ELSE run_at END,
                       CASE e.seq WHEN 2 THEN 'bench-worker' END
                FROM inserted,
                     (VALUES (2, 'CLAIMED', 'RUNNING'), (3, 'SUCCEEDED', 'SUCCEEDED'))
                         AS e(seq, type, status)
            """;

    private final JdbcTemplate jdbc;

    private final String insert;

    RetainedRuns(JdbcTemplate jdbc, String schema) {
        this.jdbc = jdbc;
        this.insert = INSERT.formatted(schema, BenchmarkTasks.ORDER);
    }

    /** Inserts {@code count} finished runs whose order ids start with {@code prefix}. */
    void insert(int count, String prefix) {
        jdbc.update(insert, prefix, prefix, count);
    }
}

package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ReadCommittedTransactions;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.registry.ThrottlePolicy;
import java.sql.Types;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims the due runs of one throttled task (S-TH-1..3), never more attempt starts per throttle key in any window of
 * the task's period than its throttle allows, across all instances.
 *
 * <p>A throttled run is admitted with its throttle key ({@code runs.throttle_key}, the empty string for one throttle
 * for the whole task), which keeps it out of the claim index of the other claims ({@code runs_waiting_due_idx} holds
 * the runs without a key only): throttled runs are claimed here alone, so a saturated key holds no slot and its
 * backlog is never scanned by the claims of other tasks and queues (S-TH-2).
 *
 * <p>Each claim is a transaction that takes the queue's advisory lock first when the queue has a concurrency limit
 * (the lock {@link RunClaims} takes, always in this order), then the task's throttle lock, and only then, in a later
 * statement, counts the task's starts of the window per key: under READ COMMITTED that statement sees every start the
 * previous holder of the lock committed. The same statement claims per key at most the starts left in the window,
 * highest priority first and then oldest due first (S-PR-2), within the queue's concurrency limit, inserts one start
 * per claimed run whose time is the claim's statement time (the {@code CLAIMED} event's, so the attempt's
 * {@code RunAttempt.startedAt}, S-TH-3), and deletes the task's starts that left the window. Every claim is a start:
 * retries, resumptions after a wait and runs recovered after their lease expired count again; a claim handed back
 * before its handler started deletes its start ({@link RunClaims#handBack}).
 */
final class ThrottledClaims {

    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(:lockKey, 0))";

    /** The window of the task's throttle ending at the statement's time, as the start times it holds. */
    private static final String IN_WINDOW = "started_at > statement_timestamp() - :periodMs * interval '1 millisecond'";

    /**
     * S-TH-1, S-TH-2, S-PR-2, S-QC-2..4: the starts of the window per key, the running runs per concurrency key of a
     * limited queue, the priorities present among the task's throttled waiting runs from the highest down (one probe
     * of {@code runs_throttled_waiting_due_idx} each), per level at most {@code {scan}} due runs of keys below both
     * limits, ranked per throttle key and per concurrency key after what the window and the queue already hold.
     */
    private static final String CLAIM = """
            WITH RECURSIVE started AS (
                SELECT throttle_key, count(*) AS n FROM {schema}.throttle_starts
                WHERE environment = :environment AND task_id = :taskId AND %1$s
                GROUP BY throttle_key
            ), running AS (
                SELECT concurrency_key, count(*) AS n FROM {schema}.runs
                WHERE :limited AND status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at IS NOT NULL
                  AND queue = ANY(:queues) AND environment = :environment
                GROUP BY concurrency_key
            ), levels(priority) AS (
                SELECT (SELECT max(l.priority) FROM {schema}.runs l
                        WHERE l.task_id = :taskId AND l.status IN %2$s AND l.throttle_key IS NOT NULL)
                UNION ALL
                SELECT (SELECT max(l.priority) FROM {schema}.runs l
                        WHERE l.task_id = :taskId AND l.status IN %2$s AND l.throttle_key IS NOT NULL
                          AND l.priority < v.priority)
                FROM levels v WHERE v.priority IS NOT NULL
            ), waiting AS (
                SELECT w.id, w.throttle_key, w.concurrency_key, w.run_at, v.priority FROM levels v
                CROSS JOIN LATERAL (
                    SELECT r.id, r.throttle_key, r.concurrency_key, r.run_at FROM {schema}.runs r
                    WHERE r.task_id = :taskId AND r.status IN %2$s AND r.throttle_key IS NOT NULL
                      AND r.priority = v.priority AND r.run_at <= statement_timestamp()
                      AND r.environment = :environment AND r.queue = ANY(:queues)
                      AND NOT EXISTS (SELECT FROM started s WHERE s.throttle_key = r.throttle_key AND s.n >= :throttle)
                      AND NOT EXISTS (SELECT FROM running n WHERE n.concurrency_key IS NOT DISTINCT FROM r.concurrency_key
                                                              AND n.n >= :concurrencyLimit)
                    ORDER BY r.run_at
                    LIMIT {scan}
                    FOR UPDATE SKIP LOCKED
                ) w
            ), ranked AS (
                SELECT w.id, w.run_at, w.priority,
                       coalesce(s.n, 0) + row_number() OVER (PARTITION BY w.throttle_key
                                                             ORDER BY w.priority DESC, w.run_at, w.id) AS throttle_slot,
                       coalesce(n.n, 0) + row_number() OVER (PARTITION BY w.concurrency_key
                                                             ORDER BY w.priority DESC, w.run_at, w.id) AS slot
                FROM waiting w
                LEFT JOIN started s ON s.throttle_key = w.throttle_key
                LEFT JOIN running n ON n.concurrency_key IS NOT DISTINCT FROM w.concurrency_key
            ), candidates AS (
                SELECT id FROM ranked WHERE throttle_slot <= :throttle AND slot <= :concurrencyLimit
                ORDER BY priority DESC, run_at LIMIT {limit}
            )""".formatted(IN_WINDOW, RunClaims.WAITING)
            + RunClaims.CLAIMED_CTES
            + """
            , throttle_started AS (
                INSERT INTO {schema}.throttle_starts (run_id, fencing_token, environment, task_id, throttle_key, started_at)
                SELECT id, fencing_token, environment, task_id, throttle_key, updated_at FROM claimed
            ), pruned AS (
                DELETE FROM {schema}.throttle_starts
                WHERE environment = :environment AND task_id = :taskId AND NOT (%s)
            )
            """.formatted(IN_WINDOW)
            + RunClaims.CLAIMED_IN_ORDER;

    /**
     * The keys at their throttle after a claim, and in how many milliseconds the first of them gains a start: when
     * the N-th newest of its starts leaves the window. Judged on the starts since the window of the transaction's
     * start, not of this statement's: a start that left the window between the claim and this statement would
     * otherwise hide its key, which the claim found at its limit, and the poller would wait a whole poll interval
     * although the key has a free start now (S-TH-2); such a key is due at once ({@code free_in_ms} at most 0) and
     * is not counted among the keys at their limit.
     */
    private static final String SATURATED = """
            SELECT count(*) FILTER (WHERE started_at > statement_timestamp() - :periodMs * interval '1 millisecond')
                       AS keys,
                   ceil(extract(epoch FROM min(started_at) + :periodMs * interval '1 millisecond'
                                           - statement_timestamp()) * 1000) AS free_in_ms
            FROM (SELECT started_at,
                         row_number() OVER (PARTITION BY throttle_key ORDER BY started_at DESC) AS newest
                  FROM {schema}.throttle_starts
                  WHERE environment = :environment AND task_id = :taskId
                    AND started_at > transaction_timestamp() - :periodMs * interval '1 millisecond') recent
            WHERE newest = :throttle
            """;

    /**
     * S-TH-1: the waiting runs of tasks that declare no throttle (any more) lose the throttle key they were admitted
     * with, so that the claims of unthrottled runs take them. One probe of {@code runs_throttled_waiting_due_idx} per
     * task, which holds nothing for a task that was never throttled.
     */
    private static final String RELEASE = """
            UPDATE {schema}.runs SET throttle_key = NULL
            WHERE task_id = ANY(:taskIds) AND status IN %s AND throttle_key IS NOT NULL
              AND environment = :environment
            """.formatted(RunClaims.WAITING);

    /**
     * What one throttled claim took, how many throttle keys were at their limit after it and when the first of them
     * gains a start.
     *
     * @param runs the claimed runs, in the order they start
     * @param saturatedKeys the task's keys at their limit after the claim (0 when the claim took all it asked)
     * @param nextFreeSlot how long until a key that was at its limit at the claim gains a start (at least 1 ms, also
     *     when it gained one since), or {@code null} when none was
     */
    record Claim(
            List<ClaimedRun> runs,
            int saturatedKeys,
            @Nullable Duration nextFreeSlot) {}

    private final JdbcClient jdbc;

    private final TransactionTemplate transactions;

    private final String environment;

    private final String schema;

    private final String claim;

    private final String saturated;

    private final String release;

    /** With {@code transactions} at {@code READ COMMITTED} ({@link ReadCommittedTransactions}), as the claims'. */
    ThrottledClaims(JdbcClient jdbc, TransactionTemplate transactions, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.environment = environment;
        this.schema = sql.schema();
        this.claim = sql.format(CLAIM);
        this.saturated = sql.format(SATURATED);
        this.release = sql.format(RELEASE);
    }

    /** Releases the throttle keys of the waiting runs of these tasks without a throttle ({@link #RELEASE}). */
    int release(Collection<String> unthrottledTaskIds) {
        if (unthrottledTaskIds.isEmpty()) {
            return 0;
        }
        return jdbc.sql(release)
                .param("taskIds", new SqlArrayValue("text", unthrottledTaskIds.toArray()))
                .param("environment", environment)
                .update();
    }

    /**
     * Claims up to {@code limit} due throttled runs of {@code taskId} in {@code queues}: either queues without a
     * concurrency limit, or one queue whose limit is {@code concurrencyLimit} (then under its lock, S-QC-2).
     */
    Claim claim(
            String worker,
            String taskId,
            ThrottlePolicy throttle,
            Collection<String> queues,
            @Nullable Integer concurrencyLimit,
            int limit,
            Duration lease) {
        if (limit < 1 || queues.isEmpty()) {
            return new Claim(List.of(), 0, null);
        }
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("worker", worker, Types.VARCHAR)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("leaseMs", lease.toMillis(), Types.BIGINT)
                .addValue("taskId", taskId, Types.VARCHAR)
                .addValue("queues", new SqlArrayValue("text", queues.toArray()))
                .addValue("limited", concurrencyLimit != null, Types.BOOLEAN)
                .addValue(
                        "concurrencyLimit",
                        concurrencyLimit == null ? Integer.MAX_VALUE : concurrencyLimit,
                        Types.INTEGER)
                .addValue("throttle", throttle.limit(), Types.INTEGER)
                .addValue("periodMs", throttle.period().toMillis(), Types.BIGINT);
        int scan = limit * 10;
        String statement = claim.replace("{limit}", Integer.toString(limit)).replace("{scan}", Integer.toString(scan));
        return transactions.execute(status -> {
            if (concurrencyLimit != null) {
                lock("runlane:" + schema + ":" + environment + ":"
                        + queues.iterator().next());
            }
            lock("runlane-throttle:" + schema + ":" + environment + ":" + taskId);
            long sent = System.nanoTime();
            List<ClaimedRun> runs = jdbc.sql(statement)
                    .paramSource(params)
                    .query(RunClaims.claimedAt(sent))
                    .list();
            if (runs.size() == limit) {
                return new Claim(runs, 0, null);
            }
            return jdbc.sql(saturated)
                    .paramSource(params)
                    .query((rs, rowNum) -> {
                        long freeInMs = rs.getLong("free_in_ms");
                        Duration free = rs.wasNull() ? null : Duration.ofMillis(Math.max(1, freeInMs));
                        return new Claim(runs, rs.getInt("keys"), free);
                    })
                    .single();
        });
    }

    private void lock(String key) {
        jdbc.sql(LOCK).param("lockKey", key).query((rs, rowNum) -> 1).list();
    }
}

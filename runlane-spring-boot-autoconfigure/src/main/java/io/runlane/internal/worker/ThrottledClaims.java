package io.runlane.internal.worker;

import io.runlane.internal.kernel.ArrayParameters;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.ReadCommittedTransactions;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.StatementParameters;
import io.runlane.internal.registry.ThrottlePolicy;
import java.sql.Types;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.SqlTypeValue;
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
 * {@code RunAttempt.startedAt}, S-TH-3), and deletes the task's starts that left the window.
 *
 * <p>The first statement reads a bounded window of the task's oldest due runs ({@link #OLDEST}). When that leaves
 * the claim short while a key is at its throttle (or the queue has a concurrency limit), so that the window may have
 * held runs of saturated keys, a second statement in the same transaction walks the task's keys and reads the due runs
 * of those below their throttle ({@link #BY_KEY}). A task whose keys are all below their throttle never pays for the
 * walk, however many keys it has.
 * So a saturated key's deep backlog never makes a claim read it (S-TH-2): the first costs a window per priority
 * level, the second one probe per key and level. Every claim is a start:
 * retries, resumptions after a wait and runs recovered after their lease expired count again; a claim handed back
 * before its handler started deletes its start ({@link RunClaims#handBack}).
 */
final class ThrottledClaims {

    /** The window of the task's throttle ending at the statement's time, as the start times it holds. */
    private static final String IN_WINDOW = "started_at > statement_timestamp() - :periodMs * interval '1 millisecond'";

    /**
     * S-TH-1, S-QC-2..4: the starts of the window per key, and the running runs per concurrency key of a limited
     * queue: what the claim ranks the waiting runs after.
     */
    private static final String COUNTS = """
            WITH RECURSIVE started AS (
                SELECT throttle_key, count(*) AS n FROM {schema}.throttle_starts
                WHERE environment = :environment AND task_id = :taskId AND %s
                GROUP BY throttle_key
            ), running AS (
                SELECT concurrency_key, count(*) AS n FROM {schema}.runs
                WHERE :limited AND status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at IS NOT NULL
                  AND queue = ANY(:queues) AND environment = :environment
                GROUP BY concurrency_key
            )""".formatted(IN_WINDOW);

    /**
     * S-TH-2, S-PR-2: the task's oldest due throttled runs: the priorities present among its waiting runs from the
     * highest down (one probe of {@code runs_throttled_waiting_due_idx} each), per level the first {@code {scan}} due
     * runs, read without locks, of which those of keys below both limits are ranked. The window is bounded before the
     * keys are judged, so
     * a saturated key's backlog costs at most a window per level; the runs behind it are the by-key claim's.
     */
    private static final String OLDEST = """
            , levels(priority) AS (
                SELECT (SELECT max(l.priority) FROM {schema}.runs l
                        WHERE l.task_id = :taskId AND l.status IN %1$s AND l.throttle_key IS NOT NULL)
                UNION ALL
                SELECT (SELECT max(l.priority) FROM {schema}.runs l
                        WHERE l.task_id = :taskId AND l.status IN %1$s AND l.throttle_key IS NOT NULL
                          AND l.priority < v.priority)
                FROM levels v WHERE v.priority IS NOT NULL
            ), waiting AS (
                SELECT f.id, f.throttle_key, f.concurrency_key, f.run_at, v.priority FROM levels v
                CROSS JOIN LATERAL (
                    SELECT f.id, f.throttle_key, f.concurrency_key, f.run_at FROM {schema}.runs f
                    WHERE f.task_id = :taskId AND f.status IN %1$s AND f.throttle_key IS NOT NULL
                      AND f.priority = v.priority AND f.run_at <= statement_timestamp()
                      AND f.environment = :environment AND f.queue = ANY(:queues)
                    ORDER BY f.run_at
                    LIMIT {scan}
                ) f
                WHERE NOT EXISTS (SELECT FROM started s WHERE s.throttle_key = f.throttle_key AND s.n >= :throttle)
                  AND NOT EXISTS (SELECT FROM running n WHERE n.concurrency_key IS NOT DISTINCT FROM f.concurrency_key
                                                          AND n.n >= :concurrencyLimit)
            )""".formatted(RunClaims.WAITING);

    /**
     * S-TH-2, S-PR-2: the due throttled runs of every key below its throttle, however deep the backlog of a saturated
     * key is. The task's keys are walked from {@code runs_throttled_key_due_idx}, one probe each; per key below its
     * throttle, the priorities present among its waiting runs from the highest down, one probe each; per key and
     * level, its oldest due runs, at most the starts the key has left, of concurrency keys below the queue's limit. So the cost follows the number of keys and levels, not the runs waiting behind them.
     */
    private static final String BY_KEY = """
            , keys(throttle_key) AS (
                SELECT (SELECT min(k.throttle_key) FROM {schema}.runs k
                        WHERE k.task_id = :taskId AND k.status IN %1$s AND k.throttle_key IS NOT NULL)
                UNION ALL
                SELECT (SELECT min(k.throttle_key) FROM {schema}.runs k
                        WHERE k.task_id = :taskId AND k.status IN %1$s AND k.throttle_key IS NOT NULL
                          AND k.throttle_key > v.throttle_key)
                FROM keys v WHERE v.throttle_key IS NOT NULL
            ), open_keys AS (
                SELECT v.throttle_key, :throttle - coalesce(s.n, 0) AS room FROM keys v
                LEFT JOIN started s ON s.throttle_key = v.throttle_key
                WHERE v.throttle_key IS NOT NULL AND coalesce(s.n, 0) < :throttle
            ), key_levels(throttle_key, room, priority) AS (
                SELECT o.throttle_key, o.room,
                       (SELECT max(l.priority) FROM {schema}.runs l
                        WHERE l.task_id = :taskId AND l.throttle_key = o.throttle_key AND l.status IN %1$s)
                FROM open_keys o
                UNION ALL
                SELECT v.throttle_key, v.room,
                       (SELECT max(l.priority) FROM {schema}.runs l
                        WHERE l.task_id = :taskId AND l.throttle_key = v.throttle_key AND l.status IN %1$s
                          AND l.priority < v.priority)
                FROM key_levels v WHERE v.priority IS NOT NULL
            ), waiting AS (
                SELECT w.id, k.throttle_key, w.concurrency_key, w.run_at, k.priority FROM key_levels k
                CROSS JOIN LATERAL (
                    SELECT r.id, r.concurrency_key, r.run_at FROM {schema}.runs r
                    WHERE r.task_id = :taskId AND r.throttle_key = k.throttle_key AND r.priority = k.priority
                      AND r.status IN %1$s AND r.run_at <= statement_timestamp()
                      AND r.environment = :environment AND r.queue = ANY(:queues)
                      AND NOT EXISTS (SELECT FROM running n WHERE n.concurrency_key IS NOT DISTINCT FROM r.concurrency_key
                                                              AND n.n >= :concurrencyLimit)
                    ORDER BY r.run_at
                    LIMIT k.room
                ) w
                WHERE k.priority IS NOT NULL
            )""".formatted(RunClaims.WAITING);

    /**
     * S-TH-1, S-PR-2, S-QC-2..4: the waiting runs ranked per throttle key and per concurrency key after what the
     * window and the queue already hold; the claim locks and takes those within both limits, highest priority first
     * and then oldest due first ({@link RunClaims#lockRanked}), inserts one start per claimed run whose time is the claim's statement time (the {@code
     * CLAIMED} event's, so the attempt's {@code RunAttempt.startedAt}, S-TH-3), and deletes the task's starts that
     * left the window.
     */
    private static final String CLAIM_RANKED =
            """
            , ranked AS (
                SELECT w.id, w.run_at, w.priority,
                       coalesce(s.n, 0) + row_number() OVER (PARTITION BY w.throttle_key
                                                             ORDER BY w.priority DESC, w.run_at, w.id) AS throttle_slot,
                       coalesce(n.n, 0) + row_number() OVER (PARTITION BY w.concurrency_key
                                                             ORDER BY w.priority DESC, w.run_at, w.id) AS slot
                FROM waiting w
                LEFT JOIN started s ON s.throttle_key = w.throttle_key
                LEFT JOIN running n ON n.concurrency_key IS NOT DISTINCT FROM w.concurrency_key
            ), candidates AS (
                %s
            )""".formatted(RunClaims.lockRanked("throttle_slot <= :throttle AND slot <= :concurrencyLimit"))
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

    /** The claim of the task's oldest due runs, which suffices unless saturated keys fill its window. */
    private static final String CLAIM = COUNTS + OLDEST + CLAIM_RANKED;

    /** The claim that reaches the due runs of every key below its throttle, for what {@link #CLAIM} left. */
    private static final String CLAIM_BY_KEY = COUNTS + BY_KEY + CLAIM_RANKED;

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
     * The parameters of the claims and of {@link #SATURATED}, with the types they had as named parameters: the queues
     * are a {@code text[]}.
     */
    private static final StatementParameters PARAMETERS = StatementParameters.builder()
            .add("worker", Types.VARCHAR)
            .add("environment", Types.VARCHAR)
            .add("leaseMs", Types.BIGINT)
            .add("taskId", Types.VARCHAR)
            .add("queues", SqlTypeValue.TYPE_UNKNOWN)
            .add("limited", Types.BOOLEAN)
            .add("concurrencyLimit", Types.INTEGER)
            .add("throttle", Types.INTEGER)
            .add("periodMs", Types.BIGINT)
            .build();

    /** A throttled task's claim of one group of queues, made once: claims up to {@code limit} due runs. */
    @FunctionalInterface
    interface TaskClaim {

        Claim claim(int limit);
    }

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

    private final String claimByKey;

    private final String saturated;

    private final String release;

    /** With {@code transactions} at {@code READ COMMITTED} ({@link ReadCommittedTransactions}), as the claims'. */
    ThrottledClaims(JdbcClient jdbc, TransactionTemplate transactions, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.environment = environment;
        this.schema = sql.schema();
        this.claim = sql.format(CLAIM);
        this.claimByKey = sql.format(CLAIM_BY_KEY);
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
        return claimOf(worker, taskId, throttle, queues, concurrencyLimit, lease)
                .claim(limit);
    }

    /**
     * The claim of {@link #claim} for one task and group of queues, made once for all of a worker's polls: its locks,
     * statements and values ({@link ClaimLock}, {@link ClaimStatement}).
     */
    TaskClaim claimOf(
            String worker,
            String taskId,
            ThrottlePolicy throttle,
            Collection<String> queues,
            @Nullable Integer concurrencyLimit,
            Duration lease) {
        if (queues.isEmpty()) {
            return limit -> new Claim(List.of(), 0, null);
        }
        StatementParameters.Values values = PARAMETERS
                .values()
                .set("worker", worker)
                .set("environment", environment)
                .set("leaseMs", lease.toMillis())
                .set("taskId", taskId)
                .set("queues", ArrayParameters.texts(queues))
                .set("limited", concurrencyLimit != null)
                .set("concurrencyLimit", concurrencyLimit == null ? Integer.MAX_VALUE : concurrencyLimit)
                .set("throttle", throttle.limit())
                .set("periodMs", throttle.period().toMillis());
        @Nullable
        ClaimLock queueLock = concurrencyLimit == null
                ? null
                : new ClaimLock(
                        jdbc,
                        "runlane:" + schema + ":" + environment + ":"
                                + queues.iterator().next());
        ClaimLock throttleLock = new ClaimLock(jdbc, "runlane-throttle:" + schema + ":" + environment + ":" + taskId);
        ClaimStatement oldest = new ClaimStatement(
                jdbc, limit -> PositionalStatement.forValues(withLimit(claim, limit), values), values);
        ClaimStatement byKey = new ClaimStatement(
                jdbc, limit -> PositionalStatement.forValues(withLimit(claimByKey, limit), values), values);
        PositionalStatement saturation = PositionalStatement.forValues(saturated, values);
        Object[] saturationArguments = saturation.arguments(values);
        return limit -> limit < 1
                ? new Claim(List.of(), 0, null)
                : transactions.execute(status -> {
                    if (queueLock != null) {
                        queueLock.take();
                    }
                    throttleLock.take();
                    List<ClaimedRun> first = oldest.claim(limit);
                    if (first.size() == limit) {
                        return new Claim(first, 0, null);
                    }
                    Claim partial = saturation(first, saturation.sql(), saturationArguments);
                    if (partial.saturatedKeys() == 0 && concurrencyLimit == null) {
                        return partial; // no key at a limit could have hidden due runs from the window
                    }
                    List<ClaimedRun> behind = byKey.claim(limit - first.size());
                    if (behind.isEmpty()) {
                        return partial;
                    }
                    List<ClaimedRun> runs =
                            Stream.concat(first.stream(), behind.stream()).toList();
                    return runs.size() == limit
                            ? new Claim(runs, 0, null)
                            : saturation(runs, saturation.sql(), saturationArguments);
                });
    }

    /** A claim that took fewer than it asked: {@code runs}, with the keys at their throttle and the next free start. */
    private Claim saturation(List<ClaimedRun> runs, String statement, Object[] arguments) {
        return jdbc.sql(statement)
                .params(arguments)
                .query((rs, rowNum) -> {
                    long freeInMs = rs.getLong("free_in_ms");
                    Duration free = rs.wasNull() ? null : Duration.ofMillis(Math.max(1, freeInMs));
                    return new Claim(runs, rs.getInt("keys"), free);
                })
                .single();
    }

    /** The claim statement of the oldest due runs for {@code limit} runs, for tests of its plan. */
    static String claimStatement(SqlTemplate sql, int limit) {
        return withLimit(sql.format(CLAIM), limit);
    }

    /** The by-key claim statement for {@code limit} runs, for tests of its plan. */
    static String claimByKeyStatement(SqlTemplate sql, int limit) {
        return withLimit(sql.format(CLAIM_BY_KEY), limit);
    }

    /** Writes a claim's limit, and how many due runs each priority level may read, into its text. */
    private static String withLimit(String statement, int limit) {
        return statement.replace("{limit}", Integer.toString(limit)).replace("{scan}", Integer.toString(limit * 10));
    }
}

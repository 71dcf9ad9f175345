package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.ArrayParameters;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.ReadCommittedTransactions;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.StatementParameters;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TraceContextColumn;
import java.sql.Types;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims due runs for a worker and keeps their leases alive.
 *
 * <p>Claiming (S-EX-1): one statement selects due waiting runs of the worker's queues and known tasks, highest
 * priority first and then oldest first (S-PR-2, {@link #LEVELS}),
 * {@code FOR UPDATE SKIP LOCKED} so that concurrent workers never wait for or take the same row, and at most as many
 * as the worker has free slots. The same statement moves them to {@code RUNNING}, bumps the attempt count and the
 * fencing token, sets the lease from the database clock, and appends the {@code CLAIMED} events. Runs of tasks this
 * instance does not know stay untouched for instances that do (rolling deploys).
 *
 * <p>Queues with a concurrency limit (S-QC-2, S-QC-3) are claimed one queue at a time inside a transaction that
 * first takes a transaction-scoped advisory lock on the queue. Under that lock the count of running runs per
 * concurrency key is exact, so the statement claims only into free capacity; runs beyond it stay {@code QUEUED}
 * (S-QC-4). Keys already at their limit are left out before the oldest waiting runs are scanned, so a backlog of
 * one key never hides the runs of another. The lock is held only for the claim statement, never while handlers
 * run.
 *
 * <p>Heartbeats (S-EX-2) extend, in one statement, the leases of every run this worker holds whose row another
 * transaction has not locked against the update (S-EX-16), and report each run's fencing token and status so that the worker can tell
 * attempts about cancellation and lost leases. A claimed run whose handler never started is handed back (S-EX-17).
 *
 * <p>Each claimed run carries when its statement was sent ({@link ClaimedRun#claimSentNanos}): the database starts
 * the lease no earlier, so the worker can tell from its own monotonic clock whether an answer that came late left
 * enough of the lease to start the handler (S-EX-30).
 */
public final class RunClaims {

    /** Claimable when due; a {@code WAITING} run's {@code run_at} is its wake-up time (S-ST-7, S-RS-4). */
    static final String WAITING = "('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING')";

    /**
     * The CTEs that claim the rows of a preceding CTE {@code candidates} (selected {@code FOR UPDATE SKIP LOCKED}):
     * the claimed runs are in the CTE {@code claimed}, their {@code CLAIMED} events are appended.
     */
    static final String CLAIMED_CTES = """
            , claimed AS (
                UPDATE {schema}.runs r
                SET status = 'RUNNING', attempts = r.attempts + 1, fencing_token = r.fencing_token + 1,
                    lease_owner = :worker, lease_expires_at = statement_timestamp() + :leaseMs * interval '1 millisecond',
                    updated_at = statement_timestamp(), last_event_seq = r.last_event_seq + 1
                FROM candidates c WHERE r.id = c.id
                RETURNING r.*
            ), claimed_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'CLAIMED', status, updated_at, :worker, 'attempt ' || attempts FROM claimed
            )
            """;

    /**
     * S-PR-2: the priorities present among the waiting runs of each of the queues {@code :queues}, from the highest
     * down, as rows (queue, priority) with a {@code NULL} priority closing each queue's list. Each level is one probe
     * of the claim index ({@code runs_waiting_due_idx}: queue, priority descending, due time) for the highest priority
     * below the previous one, whatever the due times: a claim with the default priority alone costs two probes.
     *
     * <p>The queues are limited to their number, written into the text ({@code {queues}}): PostgreSQL estimates the
     * rows of {@code unnest} over a bound array at 10 whatever its length, so without the limit the generic plan of a
     * claim of one queue looked ten times dearer than a custom one, and the claim was planned afresh on every
     * execution, which took twice as long as running it.
     */
    private static final String LEVELS = """
            levels(queue, priority) AS (
                SELECT q.queue, (SELECT max(l.priority) FROM {schema}.runs l
                                 WHERE l.queue = q.queue AND l.status IN %1$s AND l.throttle_key IS NULL)
                FROM (SELECT unnest(cast(:queues AS text[])) LIMIT {queues}) AS q(queue)
                UNION ALL
                SELECT v.queue, (SELECT max(l.priority) FROM {schema}.runs l
                                 WHERE l.queue = v.queue AND l.status IN %1$s AND l.throttle_key IS NULL
                                   AND l.priority < v.priority)
                FROM levels v WHERE v.priority IS NOT NULL
            )""".formatted(WAITING);

    /**
     * Due waiting runs of queues without a concurrency limit, highest priority first, then oldest due first
     * (S-EX-1, S-PR-2). Each priority level ({@link #LEVELS}) reads only its due entries of the claim index, at most a
     * claim's worth, skipping locked rows; so neither a deep backlog of runs due later nor a backlog of another
     * priority is scanned. The limit is written into the text ({@link #withLimits}) rather than bound: with a bound
     * {@code LIMIT} PostgreSQL keeps planning the statement afresh on every execution, which cost more than running
     * it.
     */
    private static final String CANDIDATES = """
            RECURSIVE %s, candidates AS (
                SELECT c.id FROM levels v
                CROSS JOIN LATERAL (
                    SELECT r.id, r.run_at FROM {schema}.runs r
                    WHERE r.status IN %s AND r.queue = v.queue AND r.priority = v.priority
                      AND r.throttle_key IS NULL AND r.run_at <= statement_timestamp()
                      AND r.environment = :environment AND r.task_id IN (:taskIds)
                    ORDER BY r.run_at
                    LIMIT {limit}
                    FOR UPDATE SKIP LOCKED
                ) c
                ORDER BY v.priority DESC, c.run_at
                LIMIT {limit}
            )""".formatted(LEVELS, WAITING);

    /** The claimed runs in the order their slots start them: priority, then due time (S-PR-2). */
    static final String CLAIMED_IN_ORDER = "SELECT * FROM claimed ORDER BY priority DESC, run_at";

    private static final String CLAIM = "WITH " + CANDIDATES + CLAIMED_CTES + CLAIMED_IN_ORDER;

    /**
     * Takes an advisory lock for the claim's transaction (a limited queue's, S-QC-2, or a throttled task's, S-TH-2)
     * and has the claims that follow run on their generic plans ({@code plan_cache_mode} for the transaction only, in
     * the same round trip). Their ranking's estimates depend on bound values (the concurrency limit, the queue, the
     * throttle), so PostgreSQL often judged a generic plan dearer than a custom one and planned the claims on every
     * poll, which cost more than running them: 1-4 ms each. The generic plans read the same bounded index ranges
     * ({@code MixedPriorityClaimPlanIntegrationTests} and {@code ThrottledClaimPlanIntegrationTests} explain them).
     */
    static final String LOCK_FOR_CLAIM = """
            SELECT pg_advisory_xact_lock(hashtextextended(:lockKey, 0)),
                   set_config('plan_cache_mode', 'force_generic_plan', true)
            """;

    /**
     * The body of a {@code candidates} CTE that locks, of the runs in a preceding CTE {@code ranked} (id, priority,
     * run_at) that meet {@code condition}, the first {@code {limit}} by priority and due time, skipping rows another
     * transaction holds. Only the runs to be claimed are locked: the claims that rank (limited queues, throttled
     * tasks) hold the queue's or the task's advisory lock, so no other claim of those runs ranks at the same time, and
     * the lock re-reads each row, so a run that a committed transaction moved meanwhile (cancelled it, or another
     * claim took it) no longer passes the status check and is left out.
     */
    static String lockRanked(String condition) {
        return """
                SELECT c.id FROM {schema}.runs c
                WHERE c.id IN (SELECT id FROM ranked WHERE %s ORDER BY priority DESC, run_at LIMIT {limit})
                  AND c.status IN %s AND c.run_at <= statement_timestamp()
                FOR UPDATE SKIP LOCKED""".formatted(condition, WAITING);
    }

    /**
     * S-QC-2..4, S-PR-2: due runs of one queue ({@code :queues} holds it alone) within its concurrency limit, highest
     * priority first, then oldest due first: per priority level at most {@code {scan}} due runs of keys below their
     * limit, read without locks and ranked per concurrency key after the running ones; only those claimed are locked
     * ({@link #lockRanked}).
     */
    private static final String CLAIM_WITHIN_LIMIT =
            """
            WITH RECURSIVE running AS (
                SELECT concurrency_key, count(*) AS n FROM {schema}.runs
                WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at IS NOT NULL
                  AND queue = :queue AND environment = :environment
                GROUP BY concurrency_key
            ), %s, waiting AS (
                SELECT w.id, w.concurrency_key, w.run_at, v.priority FROM levels v
                CROSS JOIN LATERAL (
                    SELECT r.id, r.concurrency_key, r.run_at FROM {schema}.runs r
                    WHERE r.status IN %s AND r.queue = v.queue AND r.priority = v.priority
                      AND r.throttle_key IS NULL AND r.run_at <= statement_timestamp()
                      AND r.environment = :environment AND r.task_id IN (:taskIds)
                      AND NOT EXISTS (SELECT FROM running n WHERE n.concurrency_key IS NOT DISTINCT FROM r.concurrency_key
                                                              AND n.n >= :concurrencyLimit)
                    ORDER BY r.run_at
                    LIMIT {scan}
                ) w
            ), ranked AS (
                SELECT w.id, w.run_at, w.priority,
                       coalesce(r.n, 0) + row_number() OVER (PARTITION BY w.concurrency_key
                                                             ORDER BY w.priority DESC, w.run_at, w.id) AS slot
                FROM waiting w LEFT JOIN running r ON r.concurrency_key IS NOT DISTINCT FROM w.concurrency_key
            ), candidates AS (
                %s
            )""".formatted(LEVELS, WAITING, lockRanked("slot <= :concurrencyLimit")) + CLAIMED_CTES + CLAIMED_IN_ORDER;

    /**
     * S-EX-2, S-EX-16: extends the leases of the named runs this worker holds without ever waiting for a row lock.
     * Rows another transaction has locked against the update (a cancellation in a slow caller transaction, a
     * take-over) are skipped and reported with {@code renewed = false} and their last committed state, so the
     * worker can still tell a lost lease from a skipped one; the next heartbeat tries them again. The rows are locked
     * {@code FOR NO KEY UPDATE}, the lock the update takes anyway: a transactional step's key-share lock on its run
     * (S-ST-15) does not conflict with it, so a step longer than the lease keeps its lease. A run the cancellation
     * grace made {@code CANCELLED} while its handler still runs keeps the attempt's lease (S-CA-5): it is extended
     * too, so that a successor waits for that handler (S-CP-3).
     */
    private static final String HEARTBEAT = """
            WITH lockable AS (
                SELECT id FROM {schema}.runs
                WHERE id = ANY(:runIds) AND lease_owner = :worker
                  AND status IN ('RUNNING', 'CANCELLATION_REQUESTED', 'CANCELLED')
                  AND environment = :environment
                FOR NO KEY UPDATE SKIP LOCKED
            ), renewed AS (
                UPDATE {schema}.runs r
                SET lease_expires_at = statement_timestamp() + :leaseMs * interval '1 millisecond'
                FROM lockable l WHERE r.id = l.id
                RETURNING r.id, r.fencing_token, r.status
            )
            SELECT id, fencing_token, status, true AS renewed FROM renewed
            UNION ALL
            SELECT id, fencing_token, status, false FROM {schema}.runs
            WHERE id = ANY(:runIds) AND lease_owner = :worker
              AND status IN ('RUNNING', 'CANCELLATION_REQUESTED', 'CANCELLED')
              AND environment = :environment AND id NOT IN (SELECT id FROM lockable)
            """;

    /**
     * S-EX-3, S-EX-17: gives a claimed run whose handler never started back to the status it was claimed from,
     * undoing the claim's attempt so that no retry budget is spent, fenced by the claim's token. The fencing token
     * stays bumped, so the handed-back claim can never write an outcome. The status to return to is the one the
     * event before the {@code CLAIMED} event recorded. A throttled run's start is deleted with it (S-TH-1): a claim
     * handed back is no attempt.
     */
    private static final String HAND_BACK = """
            WITH handed AS (
                UPDATE {schema}.runs r
                SET status = coalesce((SELECT e.status FROM {schema}.run_events e
                                       WHERE e.run_id = r.id AND e.seq < r.last_event_seq
                                         AND e.status IN %s
                                       ORDER BY e.seq DESC LIMIT 1), 'QUEUED'),
                    attempts = r.attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
                    updated_at = statement_timestamp(), last_event_seq = r.last_event_seq + 1
                WHERE r.id = :runId AND r.fencing_token = :fencingToken AND r.lease_owner = :worker
                  AND r.status = 'RUNNING' AND r.environment = :environment
                RETURNING r.*
            ), handed_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'HANDED_BACK', status, updated_at, :worker,
                       'attempt ' || (attempts + 1) || ' never started: ' || :reason FROM handed
            ), unstarted AS (
                DELETE FROM {schema}.throttle_starts t USING handed h
                WHERE t.run_id = h.id AND t.fencing_token = :fencingToken
            )
            SELECT count(*) FROM handed
            """.formatted(WAITING);

    /**
     * S-EX-32: after an outage, expires at once the leases this worker holds on runs it no longer has in hand (their
     * outcome was lost with the old primary's unreplicated commits, or their hand-back failed), so that lease
     * recovery retries them now instead of a lease later. Only runs that no claim can still be about to start: their
     * last change is older than the longest a claim may wait before its handler starts (S-EX-30), by the database
     * clock, and a heartbeat never moves {@code updated_at}. The partial index over leased runs bounds the scan.
     */
    private static final String EXPIRE_ORPHANED_LEASES = """
            UPDATE {schema}.runs
            SET lease_expires_at = statement_timestamp()
            WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at IS NOT NULL
              AND lease_expires_at > statement_timestamp()
              AND lease_owner = :worker AND environment = :environment
              AND NOT (id = ANY(:held))
              AND updated_at < statement_timestamp() - :startWindowMs * interval '1 millisecond'
            RETURNING id
            """;

    private static final String EXISTS = """
            SELECT EXISTS (SELECT FROM {schema}.runs WHERE id = :runId AND environment = :environment)
            """;

    /**
     * The parameters of the claims ({@link #CLAIM}, {@link #CLAIM_WITHIN_LIMIT}), with the types they had as named
     * parameters: the tasks' ids are a list, one position each, and the queues a {@code text[]}.
     */
    private static final StatementParameters CLAIM_PARAMETERS = StatementParameters.builder()
            .add("worker", Types.VARCHAR)
            .add("environment", Types.VARCHAR)
            .add("taskIds", SqlTypeValue.TYPE_UNKNOWN)
            .add("leaseMs", Types.BIGINT)
            .add("queues", SqlTypeValue.TYPE_UNKNOWN)
            .add("queue", Types.VARCHAR)
            .add("concurrencyLimit", Types.INTEGER)
            .build();

    /** The most claim shapes kept made positional ({@link #statement}). */
    private static final int MAX_SHAPES = 256;

    /**
     * What a claim's positional text depends on: the limit, the queues and tasks it names (a claim within a queue's
     * concurrency limit names one queue, and reads per priority level as many runs as the limit makes it).
     *
     * @param concurrencyLimit the queue's concurrency limit, or 0 for a claim of queues without one
     */
    private record ClaimShape(int limit, int queues, int tasks, int concurrencyLimit) {

        static ClaimShape due(int limit, int queues, int tasks) {
            return new ClaimShape(limit, queues, tasks, 0);
        }

        static ClaimShape withinLimit(int limit, int concurrencyLimit, int tasks) {
            return new ClaimShape(limit, 1, tasks, concurrencyLimit);
        }
    }

    /** A claim of one group of a worker's queues, made once: claims up to {@code limit} due runs. */
    @FunctionalInterface
    interface GroupClaim {

        List<ClaimedRun> claim(int limit);
    }

    /** What a heartbeat learned about one held run. */
    public record HeldRun(UUID runId, long fencingToken, RunStatus status, boolean renewed) {}

    /** Maps the claimed rows of a claim statement sent at {@code sentNanos} ({@link ClaimedRun#claimSentNanos}). */
    static RowMapper<ClaimedRun> claimedAt(long sentNanos) {
        return (rs, rowNum) -> new ClaimedRun(
                RunRowMapper.INSTANCE.mapRow(rs, rowNum),
                rs.getLong("fencing_token"),
                rs.getInt("releases"),
                TraceContextColumn.decode(rs.getString("trace_context")),
                sentNanos);
    }

    private final JdbcClient jdbc;

    private final TransactionTemplate transactions;

    private final String environment;

    private final String schema;

    private final String claim;

    private final String claimWithinLimit;

    private final String heartbeat;

    private final String handBack;

    private final String expireOrphanedLeases;

    private final String exists;

    private final ThrottledClaims throttled;

    private final Map<ClaimShape, PositionalStatement> statements = new ConcurrentHashMap<>();

    public RunClaims(JdbcClient jdbc, TransactionTemplate transactions, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.transactions = ReadCommittedTransactions.of(transactions, jdbc);
        this.environment = environment;
        this.schema = sql.schema();
        this.claim = sql.format(CLAIM);
        this.claimWithinLimit = sql.format(CLAIM_WITHIN_LIMIT);
        this.heartbeat = sql.format(HEARTBEAT);
        this.handBack = sql.format(HAND_BACK);
        this.expireOrphanedLeases = sql.format(EXPIRE_ORPHANED_LEASES);
        this.exists = sql.format(EXISTS);
        this.throttled = new ThrottledClaims(jdbc, this.transactions, sql, environment);
    }

    /** The claims of throttled tasks' runs (S-TH-1..3), in the same database and environment. */
    ThrottledClaims throttled() {
        return throttled;
    }

    /** Claims up to {@code limit} due runs of queues without a concurrency limit. */
    public List<ClaimedRun> claimDue(
            String worker, Collection<String> queues, Collection<String> taskIds, int limit, Duration lease) {
        if (limit < 1 || queues.isEmpty() || taskIds.isEmpty()) {
            return List.of();
        }
        StatementParameters.Values values = dueClaimValues(worker, queues, taskIds, lease);
        PositionalStatement statement = statement(ClaimShape.due(limit, queues.size(), taskIds.size()), values);
        return ClaimStatement.send(jdbc, statement.sql(), statement.arguments(values));
    }

    /**
     * The claim of due runs of queues without a concurrency limit for {@code worker}, made once for all its polls
     * ({@link ClaimStatement}); it claims nothing for a limit below 1, no queue or no task.
     */
    GroupClaim dueClaim(String worker, Collection<String> queues, Collection<String> taskIds, Duration lease) {
        if (queues.isEmpty() || taskIds.isEmpty()) {
            return limit -> List.of();
        }
        StatementParameters.Values values = dueClaimValues(worker, queues, taskIds, lease);
        ClaimStatement statement = new ClaimStatement(
                jdbc, limit -> statement(ClaimShape.due(limit, queues.size(), taskIds.size()), values), values);
        return limit -> limit < 1 ? List.of() : statement.claim(limit);
    }

    /** Claims up to {@code limit} due runs of one queue, never exceeding its concurrency limit (S-QC-2, S-QC-3). */
    public List<ClaimedRun> claimDueWithinLimit(
            String worker, String queue, int concurrencyLimit, Collection<String> taskIds, int limit, Duration lease) {
        if (limit < 1 || taskIds.isEmpty()) {
            return List.of();
        }
        StatementParameters.Values values = limitedClaimValues(worker, queue, concurrencyLimit, taskIds, lease);
        PositionalStatement statement =
                statement(ClaimShape.withinLimit(limit, concurrencyLimit, taskIds.size()), values);
        ClaimLock lock = new ClaimLock(jdbc, queueLockKey(queue));
        return transactions.execute(status -> {
            lock.take();
            return ClaimStatement.send(jdbc, statement.sql(), statement.arguments(values));
        });
    }

    /**
     * The claim of due runs of {@code queue}, within its concurrency limit, for {@code worker}, made once for all its
     * polls: in a transaction, under the queue's advisory lock ({@link ClaimLock}), the statement for the limit ({@link
     * ClaimStatement}); it claims nothing for a limit below 1 or no task.
     */
    GroupClaim limitedClaim(
            String worker, String queue, int concurrencyLimit, Collection<String> taskIds, Duration lease) {
        if (taskIds.isEmpty()) {
            return limit -> List.of();
        }
        StatementParameters.Values values = limitedClaimValues(worker, queue, concurrencyLimit, taskIds, lease);
        ClaimLock lock = new ClaimLock(jdbc, queueLockKey(queue));
        ClaimStatement statement = new ClaimStatement(
                jdbc,
                limit -> statement(ClaimShape.withinLimit(limit, concurrencyLimit, taskIds.size()), values),
                values);
        return limit -> limit < 1
                ? List.of()
                : transactions.execute(status -> {
                    lock.take();
                    return statement.claim(limit);
                });
    }

    /** The advisory lock key of a limited queue's claims, which throttled claims of its runs take too (S-QC-2). */
    String queueLockKey(String queue) {
        return "runlane:" + schema + ":" + environment + ":" + queue;
    }

    /**
     * Extends the leases of the given runs that this worker still holds and reports them (S-EX-2). Only the runs
     * the worker names: one whose outcome it gave up recording must be left to expire, so that recovery retries it.
     */
    public Map<UUID, HeldRun> heartbeat(String worker, Collection<UUID> runIds, Duration lease) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("runIds", new SqlArrayValue("uuid", runIds.toArray()))
                .addValue("worker", worker, Types.VARCHAR)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("leaseMs", lease.toMillis(), Types.BIGINT);
        return jdbc
                .sql(heartbeat)
                .paramSource(params)
                .query((rs, rowNum) -> new HeldRun(
                        rs.getObject("id", UUID.class),
                        rs.getLong("fencing_token"),
                        RunStatus.valueOf(rs.getString("status")),
                        rs.getBoolean("renewed")))
                .list()
                .stream()
                .collect(Collectors.toMap(HeldRun::runId, held -> held));
    }

    /**
     * Hands a claimed run back without spending retry budget (S-EX-17): its handler never started. Returns whether
     * the claim still held the run; a run cancelled or taken over meanwhile is left as it is.
     */
    public boolean handBack(ClaimedRun claimed, String worker, String reason) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("runId", claimed.run().id())
                .addValue("fencingToken", claimed.fencingToken(), Types.BIGINT)
                .addValue("worker", worker, Types.VARCHAR)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("reason", reason, Types.VARCHAR);
        Long handed = jdbc.sql(handBack).paramSource(params).query(Long.class).single();
        return handed != null && handed > 0;
    }

    /**
     * Expires the leases {@code worker} holds on runs other than {@code held} whose last change is older than {@code
     * startWindow} ({@link #EXPIRE_ORPHANED_LEASES}); returns their ids.
     */
    public List<UUID> expireOrphanedLeases(String worker, Collection<UUID> held, Duration startWindow) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("held", new SqlArrayValue("uuid", held.toArray()))
                .addValue("worker", worker, Types.VARCHAR)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("startWindowMs", startWindow.toMillis(), Types.BIGINT);
        return jdbc.sql(expireOrphanedLeases)
                .paramSource(params)
                .query((rs, rowNum) -> rs.getObject("id", UUID.class))
                .list();
    }

    /** Whether the run exists in this environment. */
    public boolean exists(UUID runId) {
        return Boolean.TRUE.equals(jdbc.sql(exists)
                .param("runId", runId)
                .param("environment", environment)
                .query(Boolean.class)
                .single());
    }

    /** The statement {@link #claimDue} sends for {@code limit} runs of one queue, for tests of its plan. */
    static String claimDueStatement(SqlTemplate sql, int limit) {
        return withLimits(sql.format(CLAIM), limit, 1);
    }

    /** The statement {@link #claimDueWithinLimit} sends for {@code limit} runs, for tests of its plan. */
    static String claimWithinLimitStatement(SqlTemplate sql, int limit, int concurrencyLimit) {
        return withLimits(sql.format(CLAIM_WITHIN_LIMIT), limit, 1)
                .replace("{scan}", Integer.toString(scan(limit, concurrencyLimit)));
    }

    /** How many due runs of keys below their limit a limited claim reads per priority level. */
    private static int scan(int limit, int concurrencyLimit) {
        return Math.max(limit, concurrencyLimit) * 10;
    }

    /** Writes a claim's limit and its number of queues into its text; see {@link #CANDIDATES} and {@link #LEVELS}. */
    private static String withLimits(String statement, int limit, int queues) {
        return statement.replace("{limit}", Integer.toString(limit)).replace("{queues}", Integer.toString(queues));
    }

    /**
     * A claim's text made positional: the text depends on the statement, its limit and the number of queues and tasks
     * it names, not on their values, so the workers' claims and the calls of {@link #claimDue} share it. At most
     * {@value #MAX_SHAPES} shapes are kept; more are made afresh on each call.
     */
    private PositionalStatement statement(ClaimShape shape, StatementParameters.Values values) {
        PositionalStatement statement = statements.get(shape);
        if (statement == null) {
            String text = shape.concurrencyLimit() == 0
                    ? withLimits(claim, shape.limit(), shape.queues())
                    : withLimits(claimWithinLimit, shape.limit(), 1)
                            .replace("{scan}", Integer.toString(scan(shape.limit(), shape.concurrencyLimit())));
            statement = PositionalStatement.forValues(text, values);
            if (statements.size() < MAX_SHAPES) {
                statements.put(shape, statement);
            }
        }
        return statement;
    }

    private StatementParameters.Values dueClaimValues(
            String worker, Collection<String> queues, Collection<String> taskIds, Duration lease) {
        return claimValues(worker, taskIds, lease).set("queues", ArrayParameters.texts(queues));
    }

    private StatementParameters.Values limitedClaimValues(
            String worker, String queue, int concurrencyLimit, Collection<String> taskIds, Duration lease) {
        return claimValues(worker, taskIds, lease)
                .set("queue", queue)
                .set("queues", ArrayParameters.texts(List.of(queue)))
                .set("concurrencyLimit", concurrencyLimit);
    }

    /** The values of {@link #CLAIM_PARAMETERS} common to every claim of {@code worker}. */
    private StatementParameters.Values claimValues(String worker, Collection<String> taskIds, Duration lease) {
        return CLAIM_PARAMETERS
                .values()
                .set("worker", worker)
                .set("environment", environment)
                .set("taskIds", List.copyOf(taskIds))
                .set("leaseMs", lease.toMillis());
    }
}

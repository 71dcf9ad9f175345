package io.runlane.internal.trigger;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.LocalStarts;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.StatementParameters;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TraceContextColumn;
import java.sql.Types;
import java.util.Optional;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.support.DataAccessUtils;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * One-commit starts (S-EX-36): the single-run admission statements of {@link SingleAdmissions} for a due run that a
 * slot of the local worker is reserved for ({@link LocalStarts}). The statement inserts the run already claimed by
 * that worker, as the worker's own claim would have ({@code RUNNING}, attempt 1, fencing token 1, the lease from the
 * database clock, its {@code CLAIMED} event), so that the trigger's commit is also the claim's, and the slot starts
 * it without a claim statement, a notification or a poll.
 *
 * <p>The run is stored claimed only if no due waiting run of its queue has at least its priority: such runs are
 * older or more urgent and go first (S-PR-2), so the run is then stored {@code QUEUED} as any other trigger's and the
 * slot is freed for the worker's claim. A singleton holder's refusal and an idempotency key's owner write nothing,
 * as in {@link SingleAdmissions}.
 */
final class StartedAdmissions {

    private static final String RUN_COLUMNS = """
            INSERT INTO {schema}.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                       idempotency_key_ttl_ms, singleton_key, concurrency_key, max_attempts,
                                       run_at, created_at, updated_at, source_type, source_run_id, created_scheduled,
                                       trace_context, priority, attempts, fencing_token, lease_owner, lease_expires_at,
                                       last_event_seq)
            """;

    /**
     * The new run's row, claimed when {@code lane.free}; {@code %s} takes one more {@code FROM} item, the group's lock
     * bound or nothing. The probe of {@code lane} reads the claim index ({@code runs_waiting_due_idx}: queue, priority
     * descending, due time) for one due waiting run of at least this priority, as the claim's own levels do. Its due,
     * creation and update times are all the statement's time, which the answer reads once ({@link
     * RunRowMapper#INSERTED_DUE_NOW}).
     */
    private static final String RUN_VALUES = """
            SELECT :id, :environment, :taskId, :queue,
                   CASE WHEN lane.free THEN 'RUNNING' ELSE 'QUEUED' END,
                   cast(:payload AS jsonb), :idempotencyKey, :idempotencyKeyTtlMs, :singletonKey, :concurrencyKey,
                   :maxAttempts, statement_timestamp(), statement_timestamp(), statement_timestamp(), :sourceType,
                   cast(:sourceRunId AS uuid), false, cast(:traceContext AS jsonb), :priority,
                   CASE WHEN lane.free THEN 1 ELSE 0 END, CASE WHEN lane.free THEN 1 ELSE 0 END,
                   CASE WHEN lane.free THEN :worker END,
                   CASE WHEN lane.free THEN statement_timestamp() + :leaseMs * interval '1 millisecond' END,
                   CASE WHEN lane.free THEN 2 ELSE 1 END
            FROM (SELECT NOT EXISTS (
                      SELECT FROM {schema}.runs w
                      WHERE w.queue = :queue AND w.priority >= :priority
                        AND w.status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING')
                        AND w.throttle_key IS NULL AND w.run_at <= statement_timestamp()
                        AND w.environment = :environment) AS free) lane%s
            """;

    /** The claim's event, as the worker's claim appends it (seq 2: event 1 is the implicit CREATED, S-RL-2). */
    private static final String CLAIMED_EVENT = """
            ), claimed_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'CLAIMED', status, updated_at, lease_owner, 'attempt 1'
                FROM inserted_run WHERE status = 'RUNNING'
            )
            SELECT true AS created, inserted_run.* FROM inserted_run
            """;

    /** S-SK-4: the conflict target is the partial unique index runs_active_singleton_uq. */
    private static final String WITHOUT_IDEMPOTENCY_KEY = "WITH inserted_run AS (\n" + RUN_COLUMNS + RUN_VALUES
            + SingleAdmissions.ON_SINGLETON_CONFLICT + CLAIMED_EVENT;

    /** S-IK-1, S-SK-4: as {@link SingleAdmissions}' statement with a key; the owner answers, claimed by nobody. */
    private static final String WITH_IDEMPOTENCY_KEY = "WITH current_owner AS (\n"
            + KeyOwnership.currentOwner("r") + "\n), inserted_run AS (\n" + RUN_COLUMNS + RUN_VALUES + """
            WHERE NOT EXISTS (SELECT FROM current_owner)
            ON CONFLICT DO NOTHING
            RETURNING *
            """
            + CLAIMED_EVENT
            + """
            UNION ALL
            SELECT false, current_owner.* FROM current_owner
            """;

    /** Whether a run stored claimed is still held by that claim (S-EX-36, {@link #admitInTransaction}). */
    private static final String CLAIM_KEPT = """
            SELECT EXISTS (SELECT FROM {schema}.runs
                           WHERE id = :runId AND fencing_token = :fencingToken AND lease_owner = :worker
                             AND status = 'RUNNING')
            """;

    /** The single-run statements' parameters, and the worker whose claim the run is stored with. */
    private static final StatementParameters PARAMETERS = StatementParameters.builder()
            .addAll(SingleAdmissions.PARAMETERS)
            .add("worker", Types.VARCHAR)
            .add("leaseMs", Types.BIGINT)
            .build();

    private static final Log logger = LogFactory.getLog(StartedAdmissions.class);

    private final JdbcClient jdbc;

    /** Runs the admission statements, whose values are bound by position. */
    private final JdbcTemplate statements;

    private final SingleAdmissions singles;

    private final String claimKept;

    private final PositionalStatement withKey;

    private final PositionalStatement withKeyBounded;

    private final PositionalStatement withoutKey;

    private final PositionalStatement withoutKeyBounded;

    StartedAdmissions(JdbcClient jdbc, JdbcTemplate statements, SqlTemplate sql, SingleAdmissions singles) {
        this.jdbc = jdbc;
        this.statements = statements;
        this.singles = singles;
        this.withKey = statement(sql, WITH_IDEMPOTENCY_KEY, "");
        this.withKeyBounded = statement(sql, WITH_IDEMPOTENCY_KEY, BatchAdmissions.GROUP_LOCK_TIMEOUT);
        this.withoutKey = statement(sql, WITHOUT_IDEMPOTENCY_KEY, "");
        this.withoutKeyBounded = statement(sql, WITHOUT_IDEMPOTENCY_KEY, BatchAdmissions.GROUP_LOCK_TIMEOUT);
        this.claimKept = sql.format(CLAIM_KEPT);
    }

    private static PositionalStatement statement(SqlTemplate sql, String statement, String fromItem) {
        return PositionalStatement.of(sql.format(statement.formatted(fromItem)), PARAMETERS);
    }

    /**
     * Admits {@code run}, in auto-commit, and then starts it on {@code slot} or frees the slot, whatever happens:
     * {@link Admission.Started} when the statement stored it claimed, the other answers of {@link SingleAdmissions}
     * otherwise; empty when the statement settled nothing.
     */
    Optional<Admission> admit(NewRun run, LocalStarts.Reservation slot, boolean bounded) {
        boolean started = false;
        try {
            Optional<Answer> answer = query(run, slot, bounded);
            ClaimedRun claimed = answer.map(Answer::claimed).orElse(null);
            if (claimed != null) {
                started = true;
                slot.start(claimed);
            }
            return answer.map(Answer::admission);
        } finally {
            if (!started) {
                slot.cancel();
            }
        }
    }

    /**
     * Admits {@code run} in the caller's transaction, which this statement joined, and hands a run it stored claimed
     * to {@code slot} once that transaction committed, freeing the slot otherwise (S-EX-36). Before it starts, a read
     * confirms that the commit kept the claim: a rollback to a savepoint set before the trigger removes the run while
     * the transaction still commits.
     */
    Optional<Admission> admitInTransaction(NewRun run, LocalStarts.Reservation slot) {
        Optional<Answer> answer;
        try {
            answer = query(run, slot, false);
        } catch (RuntimeException | Error ex) {
            slot.cancel();
            throw ex;
        }
        ClaimedRun claimed = answer.map(Answer::claimed).orElse(null);
        if (claimed == null) {
            slot.cancel();
            return answer.map(Answer::admission);
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                handOver(claimed, slot, status == STATUS_COMMITTED);
            }
        });
        return answer.map(Answer::admission);
    }

    /** Starts a claim its caller's transaction committed, once it is confirmed; frees the slot otherwise. */
    private void handOver(ClaimedRun claimed, LocalStarts.Reservation slot, boolean committed) {
        boolean kept = false;
        try {
            kept = committed
                    && Boolean.TRUE.equals(jdbc.sql(claimKept)
                            .param("runId", claimed.run().id())
                            .param("fencingToken", claimed.fencingToken())
                            .param("worker", slot.workerId())
                            .query(Boolean.class)
                            .single());
        } catch (RuntimeException ex) {
            logger.warn(
                    "Could not confirm the start of run " + claimed.run().id() + " after its trigger's commit; its"
                            + " lease will expire and recovery will retry it",
                    ex);
        }
        if (kept) {
            slot.start(claimed);
        } else {
            slot.cancel();
        }
    }

    private Optional<Answer> query(NewRun run, LocalStarts.Reservation slot, boolean bounded) {
        StatementParameters.Values values = singles.fill(PARAMETERS.values(), run)
                .set("worker", slot.workerId())
                .set("leaseMs", slot.lease().toMillis());
        PositionalStatement statement = run.idempotencyKey() == null
                ? (bounded ? withoutKeyBounded : withoutKey)
                : (bounded ? withKeyBounded : withKey);
        long sent = System.nanoTime();
        return DataAccessUtils.optionalResult(statements.query(
                statement.sql(), statement.setter(values), (rs, rowNum) -> {
                    boolean created = rs.getBoolean("created");
                    Run stored = (created ? RunRowMapper.INSERTED_DUE_NOW : RunRowMapper.INSTANCE).mapRow(rs, rowNum);
                    ClaimedRun claimed = created && stored.status() == RunStatus.RUNNING
                            ? new ClaimedRun(
                                    stored,
                                    rs.getLong("fencing_token"),
                                    0,
                                    TraceContextColumn.decode(rs.getString("trace_context")),
                                    sent)
                            : null;
                    return new Answer(stored, created, claimed);
                }));
    }

    /** A row of the statement's answer, and the claim it holds when it stored the run claimed. */
    private record Answer(
            Run run, boolean created, @Nullable ClaimedRun claimed) {

        Admission admission() {
            if (claimed != null) {
                return new Admission.Started(asCreated(run));
            }
            return created ? new Admission.Created(run) : new Admission.Existing(run);
        }
    }

    /**
     * The run as its trigger created it, before the same commit claimed it (S-EX-36): {@code QUEUED}, no attempt yet,
     * as every {@code CREATED} answer of a due run reads (S-TR-1).
     */
    private static Run asCreated(Run running) {
        return new Run(
                running.id(),
                running.taskId(),
                running.queue(),
                RunStatus.QUEUED,
                running.idempotencyKey(),
                running.singletonKey(),
                0,
                running.maxAttempts(),
                running.createdAt(),
                running.createdAt(),
                running.runAt(),
                null,
                null,
                running.payloadJson(),
                running.sourceRunId(),
                running.concurrencyKey(),
                running.idempotencyKeyTtl(),
                running.sourceType(),
                null,
                0,
                running.priority(),
                running.debounceKey(),
                running.scheduleId());
    }
}

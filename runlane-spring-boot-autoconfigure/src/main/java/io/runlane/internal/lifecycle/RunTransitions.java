package io.runlane.internal.lifecycle;

import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextSanitizer;
import java.sql.Types;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Operator and engine transitions of a run that do not belong to an attempt: finishing an active run,
 * cancellation, resuming a failed or cancelled run in place, and the lock a bulk action takes first. Each is one statement whose ownership rules come from {@link TransitionSql} (S-RL-1, S-RL-2).
 */
public final class RunTransitions {

    private static final String FINISH = TransitionSql.transition("""
            UPDATE {schema}.runs
            SET status = :status, finished_at = statement_timestamp(), updated_at = statement_timestamp(),
                failure_code = :failureCode, failure_class = :failureClass, failure_message = :failureMessage,
                failure_stack = NULL, lease_owner = NULL, lease_expires_at = NULL, last_event_seq = last_event_seq + 1
            WHERE id = :id AND environment = :environment AND finished_at IS NULL
            RETURNING *""", TransitionSql.EVENT_BY_STATUS, ":detail");

    /**
     * S-CA-1..3: a waiting run ({@code WAITING} included) is cancelled at once, a running one is asked to stop, anything else is left as it is.
     */
    private static final String CANCEL = TransitionSql.transition("""
            UPDATE {schema}.runs
            SET status = CASE WHEN status = 'RUNNING' THEN 'CANCELLATION_REQUESTED' ELSE 'CANCELLED' END,
                finished_at = CASE WHEN status = 'RUNNING' THEN NULL ELSE statement_timestamp() END,
                updated_at = statement_timestamp(), last_event_seq = last_event_seq + 1
            WHERE id = :id AND environment = :environment
              AND status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING', 'RUNNING')
            RETURNING *""", TransitionSql.EVENT_BY_STATUS, ":detail");

    /**
     * S-SC-6: the schedule's previous run, superseded by the new occurrence's run: one that is not executing is
     * cancelled at once, a running or stopping one is asked (again) to stop, with the reason naming its successor.
     * A run that {@code SUPERSEDE} already released from its key to a successor is left as it is.
     */
    private static final String SUPERSEDE = TransitionSql.transition("""
            UPDATE {schema}.runs
            SET status = CASE WHEN status IN ('RUNNING', 'CANCELLATION_REQUESTED') THEN 'CANCELLATION_REQUESTED'
                              ELSE 'CANCELLED' END,
                finished_at = CASE WHEN status IN ('RUNNING', 'CANCELLATION_REQUESTED') THEN NULL
                                   ELSE statement_timestamp() END,
                updated_at = statement_timestamp(), last_event_seq = last_event_seq + 1
            WHERE id = :id AND environment = :environment AND finished_at IS NULL AND NOT singleton_released
            RETURNING *""", TransitionSql.EVENT_BY_STATUS, ":detail");

    /**
     * S-CP-3, S-SC-6: a run just created to supersede another waits (S-RS-4's mechanism) until no attempt of the run
     * it supersedes may still execute: that run is active, or it is terminal but the attempt the cancellation grace
     * ended is still leased (S-CA-5, {@link TransitionSql#attemptGone}). When the superseded run never started and
     * was itself waiting for such a run (a waiting successor cancelled by a newer one), the new run waits for that one
     * instead, so a chain of supersessions never lets a run start beside the one still executing.
     *
     * <p>The awaited run is read {@code FOR SHARE}: one whose ending (or whose attempt's end) is committing makes this
     * statement wait and is then read as it is; one still executing cannot end before this transaction commits, so
     * the wake-up after its end ({@code RunEndings}) sees the new run waiting. The new run is not due until woken: its
     * own due time is kept in {@code run_at}, moved {@link TransitionSql#PREDECESSOR_WAIT} ahead; the wake-up makes it
     * due at the later of that time and the predecessor's end (S-TR-4). A run waiting for a predecessor is the only
     * {@code WAITING} run that never started ({@code attempts = 0}): a handler parks a run it executes.
     */
    private static final String AWAIT_PREDECESSOR = TransitionSql.transition(
            """
            UPDATE {schema}.runs r
            SET status = 'WAITING', awaiting_run_id = p.id, run_at = r.run_at + %s,
                updated_at = statement_timestamp(), last_event_seq = r.last_event_seq + 1
            FROM (SELECT a.id FROM {schema}.runs a
                  WHERE a.id IN (:predecessor,
                                 (SELECT q.awaiting_run_id FROM {schema}.runs q
                                  WHERE q.id = :predecessor AND q.finished_at IS NOT NULL AND q.attempts = 0))
                    AND (a.finished_at IS NULL OR a.lease_expires_at > statement_timestamp())
                  LIMIT 1
                  FOR SHARE) p
            WHERE r.id = :id AND r.environment = :environment AND r.status IN ('QUEUED', 'SCHEDULED')
            RETURNING r.*""".formatted(TransitionSql.PREDECESSOR_WAIT),
            TransitionSql.EVENT_BY_STATUS,
            "'waiting for superseded run ' || cast(awaiting_run_id AS text)");

    /**
     * S-RV-1, S-RV-2: a {@code FAILED} or {@code CANCELLED} run goes back to {@code QUEUED} in place, due now, with
     * its id, payload, keys and recorded steps. Its attempts so far are forgiven: they count as releases from now on,
     * so that {@code spentAttempts} starts again at 0 and the run has its whole budget. It re-takes its keys in this
     * statement: the run re-enters the owners' index of its idempotency key ({@link KeyOwnership}) and the holders'
     * index of its singleton key, and the statement changes nothing when another run owns the one or holds the other
     * (the unique indexes arbitrate a trigger that commits meanwhile). A run whose last attempt may still execute (the
     * cancellation grace ended the run but its lease still runs, S-CA-5) is not resumed either: the two attempts would
     * overlap. The wait a run cancelled while {@code WAITING} was registered for (the run or signal it awaited) is
     * cleared, so no wake-up source touches the queued run; its handler registers the wait again when it replays to
     * that point (S-RV-6). A debounced run cancelled while pending does not reopen its window (S-DB-3): its window
     * start is cleared, so it is never a second pending run of its debounce key.
     */
    private static final String RESUME =
            TransitionSql.transition("""
            UPDATE {schema}.runs r
            SET status = 'QUEUED', finished_at = NULL, run_at = statement_timestamp(), updated_at = statement_timestamp(),
                failure_code = NULL, failure_class = NULL, failure_message = NULL, failure_stack = NULL,
                releases = r.attempts,
                awaiting_run_id = NULL, awaiting_signal = NULL, idempotency_key_released = false,
                singleton_released = false, lease_owner = NULL, lease_expires_at = NULL,
                last_event_seq = r.last_event_seq + 1, debounce_started_at = NULL
            WHERE r.id = :id AND r.environment = :environment AND r.status IN ('FAILED', 'CANCELLED')
              AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= statement_timestamp())
              AND NOT EXISTS (SELECT FROM {schema}.runs o
                              WHERE o.environment = r.environment AND o.task_id = r.task_id
                                AND o.idempotency_key = r.idempotency_key AND o.id <> r.id AND%s)
              AND NOT EXISTS (SELECT FROM {schema}.runs s
                              WHERE s.environment = r.environment AND s.task_id = r.task_id
                                AND s.singleton_key = r.singleton_key AND s.id <> r.id
                                AND s.finished_at IS NULL AND NOT s.singleton_released)
            RETURNING r.*""".formatted(KeyOwnership.holds("o")), "'RESUMED'", ":detail");

    /**
     * S-IK-10: before a resume, a run of the same key whose retention has passed gives the key up, as a trigger of
     * the key would make it ({@code idempotency_key_released}): it owns nothing, but its entry in the owners' index
     * would refuse the resumed run.
     */
    private static final String RELEASE_EXPIRED_HOLDER = """
            UPDATE {schema}.runs o SET idempotency_key_released = true
            FROM {schema}.runs r
            WHERE r.id = :id AND r.environment = :environment AND r.idempotency_key IS NOT NULL
              AND o.environment = r.environment AND o.task_id = r.task_id AND o.idempotency_key = r.idempotency_key
              AND o.id <> r.id AND%s
            """.formatted(KeyOwnership.holds("o")
            + "\n  AND o.finished_at IS NOT NULL AND " + KeyOwnership.retainedUntil("o") + " <= statement_timestamp()");

    /**
     * S-RV-4: a bulk action locks each run before its transition, skipping a run another transaction holds (a claim,
     * a completion, another operator) instead of waiting for it, as pruning does (S-OP-8).
     */
    private static final String LOCK_IF_FREE = """
            SELECT * FROM {schema}.runs WHERE id = :id AND environment = :environment FOR UPDATE SKIP LOCKED""";

    private final JdbcClient jdbc;

    private final String awaitPredecessor;

    private final String environment;

    private final String finish;

    private final String cancel;

    private final String supersede;

    private final String resume;

    private final String releaseExpiredHolder;

    private final String lockIfFree;

    public RunTransitions(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.finish = sql.format(FINISH);
        this.cancel = sql.format(CANCEL);
        this.awaitPredecessor = sql.format(AWAIT_PREDECESSOR);
        this.supersede = sql.format(SUPERSEDE);
        this.resume = sql.format(RESUME);
        this.releaseExpiredHolder = sql.format(RELEASE_EXPIRED_HOLDER);
        this.lockIfFree = sql.format(LOCK_IF_FREE);
    }

    /**
     * Moves an active run to a terminal status and releases or retains its keys. Returns the finished run, or empty
     * when the run does not exist or is already terminal (a terminal run changes only by a resume, {@link #resume}).
     */
    public Optional<Run> finish(
            UUID runId, RunStatus status, @Nullable RunFailure failure, String actor, @Nullable String detail) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException("Not a terminal status: " + status);
        }
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("status", status.name(), Types.VARCHAR)
                .addValue("failureCode", failure == null ? null : TextSanitizer.storable(failure.code()), Types.VARCHAR)
                .addValue(
                        "failureClass",
                        failure == null ? null : TextSanitizer.storable(failure.exceptionClass()),
                        Types.VARCHAR)
                .addValue(
                        "failureMessage",
                        failure == null ? null : TextSanitizer.storable(failure.message()),
                        Types.VARCHAR)
                .addValue("actor", TextSanitizer.storable(actor), Types.VARCHAR)
                .addValue("detail", TextSanitizer.storable(detail), Types.VARCHAR);
        return jdbc.sql(finish).paramSource(params).query(RunRowMapper.INSTANCE).optional();
    }

    /**
     * Cancels a run (S-CA-1, S-CA-2): returns the changed run, or empty when it does not exist or was not
     * cancellable (terminal or already asked to stop), in which case nothing changed (S-CA-3).
     */
    public Optional<Run> cancel(UUID runId, String actor, @Nullable String reason) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("actor", TextSanitizer.storable(actor), Types.VARCHAR)
                .addValue("detail", TextSanitizer.storable(reason), Types.VARCHAR);
        return jdbc.sql(cancel).paramSource(params).query(RunRowMapper.INSTANCE).optional();
    }

    /**
     * Supersedes the schedule's previous run for its new occurrence's run (S-SC-6, {@link #SUPERSEDE}): returns the
     * changed run, or empty when it was terminal or already released to a successor, in which case nothing changed.
     */
    public Optional<Run> supersede(UUID runId, String actor, String reason) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("actor", TextSanitizer.storable(actor), Types.VARCHAR)
                .addValue("detail", TextSanitizer.storable(reason), Types.VARCHAR);
        return jdbc.sql(supersede)
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /**
     * Makes a new, not yet started run wait until no attempt of {@code predecessor} (or of the run it was waiting
     * for) may still execute ({@link #AWAIT_PREDECESSOR}). Returns the waiting run, or empty when the predecessor
     * already ended and the run stays due.
     */
    public Optional<Run> awaitPredecessor(UUID runId, UUID predecessor, String actor) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("predecessor", predecessor, Types.OTHER)
                .addValue("actor", actor, Types.VARCHAR);
        return jdbc.sql(awaitPredecessor)
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /**
     * Resumes a {@code FAILED} or {@code CANCELLED} run in place ({@link #RESUME}): returns the queued run, or empty
     * when nothing changed because the run does not exist, is not resumable, or another run owns or holds one of its
     * keys; the caller tells which.
     */
    public Optional<Run> resume(UUID runId, String actor, @Nullable String detail) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("actor", TextSanitizer.storable(actor), Types.VARCHAR)
                .addValue("detail", TextSanitizer.storable(detail), Types.VARCHAR);
        jdbc.sql(releaseExpiredHolder).paramSource(params).update();
        return jdbc.sql(resume).paramSource(params).query(RunRowMapper.INSTANCE).optional();
    }

    /**
     * Locks the run until the caller's transaction ends ({@link #LOCK_IF_FREE}); empty, without waiting, when another
     * transaction holds it or there is no such run.
     */
    public Optional<Run> lockIfFree(UUID runId) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR);
        return jdbc.sql(lockIfFree)
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .optional();
    }
}

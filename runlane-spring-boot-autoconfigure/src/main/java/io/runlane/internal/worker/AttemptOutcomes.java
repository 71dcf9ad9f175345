package io.runlane.internal.worker;

import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextSanitizer;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TransitionSql;
import java.sql.Types;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Ends attempts. Every statement applies only while the attempt still holds its claim: the run is running and its
 * fencing token is the attempt's (S-EX-3). A worker that lost its lease (recovered by maintenance, or claimed again
 * by another worker) therefore changes nothing and learns so from the empty answer. Terminal outcomes release
 * ownership in the same statement ({@link TransitionSql}).
 */
public final class AttemptOutcomes {

    /** Handler returned: the batch completion's statement for one attempt ({@link BatchCompletions}). */
    private static final String COMPLETE = BatchCompletions.held(
            TransitionSql.transition(BatchCompletions.COMPLETED_RUNS, TransitionSql.EVENT_BY_STATUS, "NULL"), "1");

    /** S-EX-6: the same run waits again without spending retry budget; a requested cancellation wins. */
    private static final String RELEASE = TransitionSql.parking(
            "'RELEASED'", "statement_timestamp() + :delayMs * interval '1 millisecond'", "", ":detail");

    /**
     * S-EX-4, S-EX-5, S-EX-7: a failed attempt retries after the given delay, or fails the run when no delay is
     * given. A run whose cancellation was requested does not retry: it ends as {@code :cancelledOutcome}. The failure
     * replaces the one stored before, its stack trace included, which is {@code NULL} for a failure without an
     * exception (S-EX-35).
     */
    private static final String FAIL = TransitionSql.transition(
            """
            UPDATE {schema}.runs
            SET status = CASE WHEN status = 'CANCELLATION_REQUESTED' THEN :cancelledOutcome
                              WHEN cast(:retryDelayMs AS bigint) IS NOT NULL THEN 'RETRYING' ELSE 'FAILED' END,
                finished_at = CASE WHEN status = 'RUNNING' AND cast(:retryDelayMs AS bigint) IS NOT NULL THEN NULL
                                   ELSE statement_timestamp() END,
                run_at = CASE WHEN status = 'RUNNING' AND cast(:retryDelayMs AS bigint) IS NOT NULL
                              THEN statement_timestamp() + cast(:retryDelayMs AS bigint) * interval '1 millisecond'
                              ELSE run_at END,
                failure_code = :failureCode, failure_class = :failureClass, failure_message = :failureMessage,
                failure_stack = :failureStack, updated_at = statement_timestamp(), lease_owner = NULL,
                lease_expires_at = NULL, last_event_seq = last_event_seq + 1
            """ + TransitionSql.HELD + """

              AND (NOT :onlyIfExpired OR lease_expires_at < statement_timestamp())
            RETURNING *""",
            "CASE WHEN :onlyIfExpired THEN 'LEASE_EXPIRED' ELSE " + TransitionSql.EVENT_BY_STATUS + " END",
            ":failureMessage");

    /**
     * S-CA-5: a run asked to stop whose handler did not return within the grace ends {@code CANCELLED}, fenced by the
     * claim's token, so the handler's late outcome is refused (S-EX-3), its keys are free and the run's slot of its
     * queue's concurrency limit is free (S-QC-2), which counts active runs only. The attempt keeps its lease: its
     * worker extends it while the handler still runs, and drops it when the handler returns ({@code RunEndings}), so
     * a successor waiting for the run starts only once that handler returned or its worker stopped heartbeating
     * (S-CP-3, {@link TransitionSql#attemptGone}).
     */
    private static final String CANCEL_OVERDUE =
            TransitionSql.transition("""
            UPDATE {schema}.runs
            SET status = 'CANCELLED', finished_at = statement_timestamp(), updated_at = statement_timestamp(),
                last_event_seq = last_event_seq + 1
            WHERE id = :id AND fencing_token = :token AND status = 'CANCELLATION_REQUESTED'
            RETURNING *""", TransitionSql.EVENT_BY_STATUS, ":detail");

    private final JdbcClient jdbc;

    private final String cancelOverdue;

    private final String complete;

    private final String release;

    private final String fail;

    public AttemptOutcomes(JdbcClient jdbc, SqlTemplate sql) {
        this.jdbc = jdbc;
        this.complete = sql.format(COMPLETE);
        this.release = sql.format(RELEASE);
        this.fail = sql.format(FAIL);
        this.cancelOverdue = sql.format(CANCEL_OVERDUE);
    }

    /**
     * Maintenance: the run was asked to stop and its handler ignored it past the grace (S-CA-5). Empty when the
     * attempt ended meanwhile or no longer holds the run.
     */
    public Optional<Run> cancelIfStillRequested(UUID runId, long token, String actor, String detail) {
        return jdbc.sql(cancelOverdue)
                .paramSource(held(runId, token, actor).addValue("detail", detail, Types.VARCHAR))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /** The handler returned. Empty when the attempt no longer holds the run. */
    public Optional<Run> completeIfHeld(UUID runId, long token, String worker) {
        return jdbc.sql(complete)
                .paramSource(
                        BatchCompletions.parameters(List.of(new BatchCompletions.HeldAttempt(runId, token)), worker))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /** The handler asked for a release. Empty when the attempt no longer holds the run. */
    public Optional<Run> releaseIfHeld(UUID runId, long token, String worker, Duration delay, String reason) {
        MapSqlParameterSource params = held(runId, token, worker)
                .addValue("delayMs", delay.toMillis(), Types.BIGINT)
                .addValue("detail", TextSanitizer.storable(reason), Types.VARCHAR);
        return jdbc.sql(release)
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /**
     * The handler failed. Retries after {@code retryDelay}, or fails the run when it is {@code null}. Empty when the
     * attempt no longer holds the run.
     *
     * @param stackTrace the bounded stack trace of the exception ({@link BoundedStackTrace}, S-EX-35), or {@code
     *     null} when no exception caused the failure
     */
    public Optional<Run> failIfHeld(
            UUID runId,
            long token,
            String worker,
            RunFailure failure,
            @Nullable String stackTrace,
            @Nullable Duration retryDelay) {
        return fail(runId, token, worker, failure, stackTrace, retryDelay, false, "FAILED");
    }

    /**
     * Maintenance: the attempt's lease expired (S-EX-7). Applies only if the lease is still expired when the
     * statement runs, so a heartbeat that arrived meanwhile wins. A run asked to cancel becomes {@code CANCELLED}
     * (S-CA-2).
     */
    public Optional<Run> expireIfLeaseLapsed(
            UUID runId, long token, String actor, RunFailure failure, @Nullable Duration retryDelay) {
        return fail(runId, token, actor, failure, null, retryDelay, true, "CANCELLED");
    }

    private Optional<Run> fail(
            UUID runId,
            long token,
            String actor,
            RunFailure failure,
            @Nullable String stackTrace,
            @Nullable Duration retryDelay,
            boolean onlyIfExpired,
            String cancelledOutcome) {
        MapSqlParameterSource params = held(runId, token, actor)
                .addValue("retryDelayMs", retryDelay == null ? null : retryDelay.toMillis(), Types.BIGINT)
                .addValue("failureCode", TextSanitizer.storable(failure.code()), Types.VARCHAR)
                .addValue("failureClass", TextSanitizer.storable(failure.exceptionClass()), Types.VARCHAR)
                .addValue("failureMessage", TextSanitizer.storable(failure.message()), Types.VARCHAR)
                .addValue("failureStack", TextSanitizer.storable(stackTrace), Types.VARCHAR)
                .addValue("onlyIfExpired", onlyIfExpired, Types.BOOLEAN)
                .addValue("cancelledOutcome", cancelledOutcome, Types.VARCHAR);
        return jdbc.sql(fail).paramSource(params).query(RunRowMapper.INSTANCE).optional();
    }

    private static MapSqlParameterSource held(UUID runId, long token, String actor) {
        return new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("token", token, Types.BIGINT)
                .addValue("actor", TextSanitizer.storable(actor), Types.VARCHAR);
    }
}

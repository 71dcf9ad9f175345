package io.runlane.internal.jdbc;

import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import java.sql.Types;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Operator and engine transitions of a run that do not belong to an attempt: finishing an active run, and
 * cancellation. Each is one statement whose ownership rules come from {@link TransitionSql} (S-RL-1, S-RL-2).
 */
public final class RunTransitions {

    private static final String FINISH = TransitionSql.transition("""
            UPDATE {schema}.runs
            SET status = :status, finished_at = statement_timestamp(), updated_at = statement_timestamp(),
                failure_code = :failureCode, failure_class = :failureClass, failure_message = :failureMessage,
                lease_owner = NULL, lease_expires_at = NULL, last_event_seq = last_event_seq + 1
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

    private final JdbcClient jdbc;

    private final String environment;

    private final String finish;

    private final String cancel;

    public RunTransitions(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.finish = sql.format(FINISH);
        this.cancel = sql.format(CANCEL);
    }

    /**
     * Moves an active run to a terminal status and releases or retains its keys. Returns the finished run, or empty
     * when the run does not exist or is already terminal (a terminal run never changes again).
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
}

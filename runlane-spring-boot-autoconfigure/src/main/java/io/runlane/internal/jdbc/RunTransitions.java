package io.runlane.internal.jdbc;

import io.runlane.Run;
import io.runlane.RunEventType;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import java.sql.Types;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Terminal transitions of a run, each one statement that also releases the run's ownership (S-RL-1, S-RL-2):
 *
 * <ol>
 *   <li>the run moves to its terminal status only if it is still active, and {@code finished_at} is set, which
 *       drops it from the partial unique index of singleton owners (S-SK-1);
 *   <li>a {@code FAILED} owner, or one created with TTL {@code active}, deletes its idempotency row (S-IK-4,
 *       S-IK-5); a {@code SUCCEEDED} or {@code CANCELLED} owner keeps it until {@code finished_at} + the TTL it was
 *       created with (S-IK-3, S-IK-6);
 *   <li>the matching event is appended with the next sequence number.
 * </ol>
 *
 * Workers call {@link #finish} with extra guards (lease, fencing token) added by the execution engine; the
 * ownership rules live here only.
 */
public final class RunTransitions {

    private static final String FINISH = """
            WITH finished AS (
                UPDATE {schema}.runs
                SET status = :status, finished_at = statement_timestamp(), updated_at = statement_timestamp(),
                    failure_code = :failureCode, failure_class = :failureClass, failure_message = :failureMessage,
                    last_event_seq = last_event_seq + 1
                WHERE id = :id AND environment = :environment AND finished_at IS NULL
                RETURNING *
            ), released_key AS (
                DELETE FROM {schema}.idempotency_keys k USING finished f
                WHERE k.environment = f.environment AND k.task_id = f.task_id AND k.idempotency_key = f.idempotency_key
                  AND k.run_id = f.id AND (f.status = 'FAILED' OR f.idempotency_key_ttl_ms = 0)
            ), retained_key AS (
                UPDATE {schema}.idempotency_keys k
                SET retained_until = f.finished_at + f.idempotency_key_ttl_ms * interval '1 millisecond'
                FROM finished f
                WHERE k.environment = f.environment AND k.task_id = f.task_id AND k.idempotency_key = f.idempotency_key
                  AND k.run_id = f.id AND f.status <> 'FAILED' AND f.idempotency_key_ttl_ms > 0
            ), finished_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, :eventType, status, finished_at, :actor, :detail FROM finished
            )
            SELECT * FROM finished
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String finish;

    public RunTransitions(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.finish = sql.format(FINISH);
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
                .addValue("eventType", eventType(status).name(), Types.VARCHAR)
                .addValue("failureCode", failure == null ? null : failure.code(), Types.VARCHAR)
                .addValue("failureClass", failure == null ? null : failure.exceptionClass(), Types.VARCHAR)
                .addValue("failureMessage", failure == null ? null : failure.message(), Types.VARCHAR)
                .addValue("actor", actor, Types.VARCHAR)
                .addValue("detail", detail, Types.VARCHAR);
        return jdbc.sql(finish).paramSource(params).query(RunRowMapper.INSTANCE).optional();
    }

    private static RunEventType eventType(RunStatus status) {
        return switch (status) {
            case SUCCEEDED -> RunEventType.SUCCEEDED;
            case FAILED -> RunEventType.FAILED;
            case CANCELLED -> RunEventType.CANCELLED;
            default -> throw new IllegalArgumentException("Not a terminal status: " + status);
        };
    }
}

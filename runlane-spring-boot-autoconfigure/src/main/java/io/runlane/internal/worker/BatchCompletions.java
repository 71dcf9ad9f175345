package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.TransitionSql;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Completes the attempts of many runs whose handlers returned, in one statement.
 *
 * <p>Every attempt is completed exactly as {@link AttemptOutcomes#completeIfHeld} would complete it alone: only
 * while it still holds its claim (S-EX-3), releasing ownership and appending its event in the same statement
 * ({@link TransitionSql}, S-RL-2). A worker that runs short handlers would otherwise spend its time on one round trip
 * and one commit per run.
 */
public final class BatchCompletions {

    /**
     * The {@code changed} CTE of a completion: the held attempts among {@code :ids} and {@code :tokens} end {@code
     * SUCCEEDED} with their result (S-RS-1), or {@code CANCELLED} when cancellation had been requested (S-CA-2). Also used for one attempt by
     * {@link AttemptOutcomes#completeIfHeld}.
     */
    static final String COMPLETED_RUNS = """
            UPDATE {schema}.runs r
            SET status = CASE WHEN r.status = 'CANCELLATION_REQUESTED' THEN 'CANCELLED' ELSE 'SUCCEEDED' END,
                result = CASE WHEN r.status = 'RUNNING' THEN cast(held.result AS jsonb) END,
                finished_at = statement_timestamp(), updated_at = statement_timestamp(),
                lease_owner = NULL, lease_expires_at = NULL, last_event_seq = r.last_event_seq + 1
            FROM unnest(:ids, :tokens, :results) AS held(id, token, result)
            WHERE r.id = held.id AND r.fencing_token = held.token AND r.status IN ('RUNNING', 'CANCELLATION_REQUESTED')
            RETURNING r.*""";

    private static final String COMPLETE_ALL =
            TransitionSql.withClause(COMPLETED_RUNS, TransitionSql.EVENT_BY_STATUS, "NULL") + "SELECT id, status FROM "
                    + TransitionSql.CHANGED_ROWS;

    /**
     * One attempt whose handler returned, with the fencing token of its claim and the result a {@link
     * io.runlane.TaskFunction} returned, as JSON ({@code null} for a {@link io.runlane.TaskHandler}).
     */
    public record HeldAttempt(
            UUID runId, long fencingToken, @Nullable String resultJson) {

        public HeldAttempt(UUID runId, long fencingToken) {
            this(runId, fencingToken, null);
        }
    }

    private final JdbcClient jdbc;

    private final String statement;

    public BatchCompletions(JdbcClient jdbc, SqlTemplate sql) {
        this.jdbc = jdbc;
        this.statement = sql.format(COMPLETE_ALL);
    }

    /**
     * Completes {@code attempts} on behalf of {@code worker}. Returns the status each completed run ended in; an
     * attempt missing from the answer no longer held its run, and its outcome was refused.
     */
    public Map<UUID, RunStatus> complete(List<HeldAttempt> attempts, String worker) {
        MapSqlParameterSource params = parameters(attempts, worker);
        Map<UUID, RunStatus> completed = new HashMap<>();
        jdbc.sql(statement).paramSource(params).query(rs -> {
            completed.put(rs.getObject("id", UUID.class), RunStatus.valueOf(rs.getString("status")));
        });
        return completed;
    }

    /** The parameters of {@link #COMPLETED_RUNS} and of the completion's events. */
    static MapSqlParameterSource parameters(List<HeldAttempt> attempts, String worker) {
        return new MapSqlParameterSource()
                .addValue("actor", worker, Types.VARCHAR)
                .addValue(
                        "ids",
                        new SqlArrayValue(
                                "uuid",
                                attempts.stream().map(HeldAttempt::runId).toArray()))
                .addValue(
                        "tokens",
                        new SqlArrayValue(
                                "bigint",
                                attempts.stream().map(HeldAttempt::fencingToken).toArray()))
                .addValue(
                        "results",
                        new SqlArrayValue(
                                "text",
                                attempts.stream().map(HeldAttempt::resultJson).toArray()));
    }
}

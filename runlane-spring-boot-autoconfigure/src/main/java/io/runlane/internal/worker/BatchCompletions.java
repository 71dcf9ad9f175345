package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.ArrayParameters;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.StatementParameters;
import io.runlane.internal.lifecycle.TransitionSql;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

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
     *
     * <p>{@code {held}} limits the attempts to their number when there are few ({@link #statementFor}): PostgreSQL
     * estimates {@code unnest} over bound arrays at 10 rows whatever their length, so for a batch of one or two the
     * generic plan looked dearer than a custom one and the statement was planned on nearly every execution (a worker
     * completing runs one or two at a time, as under a steady load of runs started on their trigger, planned it for
     * 0.3 ms per run). Above 10 the generic estimate is the lower one, and the statement is limited to nothing.
     */
    static final String COMPLETED_RUNS = """
            UPDATE {schema}.runs r
            SET status = CASE WHEN r.status = 'CANCELLATION_REQUESTED' THEN 'CANCELLED' ELSE 'SUCCEEDED' END,
                result = CASE WHEN r.status = 'RUNNING' THEN cast(held.result AS jsonb) END,
                finished_at = statement_timestamp(), updated_at = statement_timestamp(),
                lease_owner = NULL, lease_expires_at = NULL, last_event_seq = r.last_event_seq + 1
            FROM (SELECT * FROM unnest(:ids, :tokens, :results) LIMIT {held}) AS held(id, token, result)
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

    /** The parameters of {@link #COMPLETE_ALL}: the arrays go as {@code uuid[]}, {@code int8[]} and {@code text[]}. */
    private static final StatementParameters PARAMETERS = StatementParameters.builder()
            .add("actor", Types.VARCHAR)
            .add("ids", SqlTypeValue.TYPE_UNKNOWN)
            .add("tokens", SqlTypeValue.TYPE_UNKNOWN)
            .add("results", SqlTypeValue.TYPE_UNKNOWN)
            .build();

    /** The largest batch that gets a statement limited to its own size; larger ones share one. */
    private static final int EXACT_SIZES = 10;

    private final JdbcClient jdbc;

    /** The statement for a batch of {@code n} attempts at {@code n - 1} up to {@link #EXACT_SIZES}, then the shared. */
    private final PositionalStatement[] statements = new PositionalStatement[EXACT_SIZES + 1];

    public BatchCompletions(JdbcClient jdbc, SqlTemplate sql) {
        this.jdbc = jdbc;
        String statement = sql.format(COMPLETE_ALL);
        for (int size = 1; size <= EXACT_SIZES; size++) {
            statements[size - 1] = PositionalStatement.of(held(statement, Integer.toString(size)), PARAMETERS);
        }
        statements[EXACT_SIZES] = PositionalStatement.of(held(statement, "ALL"), PARAMETERS);
    }

    /** {@link #COMPLETED_RUNS} in {@code statement} limited to {@code limit} attempts. */
    static String held(String statement, String limit) {
        return statement.replace("{held}", limit);
    }

    /** The statement for a batch of {@code size} attempts; see {@link #COMPLETED_RUNS}. */
    private PositionalStatement statementFor(int size) {
        return statements[Math.min(size, EXACT_SIZES + 1) - 1];
    }

    /**
     * Completes {@code attempts} on behalf of {@code worker}. Returns the status each completed run ended in; an
     * attempt missing from the answer no longer held its run, and its outcome was refused.
     */
    public Map<UUID, RunStatus> complete(List<HeldAttempt> attempts, String worker) {
        StatementParameters.Values values = values(attempts, worker);
        Map<UUID, RunStatus> completed = new HashMap<>();
        PositionalStatement statement = statementFor(attempts.size());
        jdbc.sql(statement.sql()).params(statement.arguments(values)).query(rs -> {
            completed.put(rs.getObject("id", UUID.class), RunStatus.valueOf(rs.getString("status")));
        });
        return completed;
    }

    /** The parameters of {@link #COMPLETED_RUNS} and of the completion's events. */
    static MapSqlParameterSource parameters(List<HeldAttempt> attempts, String worker) {
        return values(attempts, worker).asParameterSource();
    }

    /** The completion's values: the worker as actor, and one array element per attempt. */
    private static StatementParameters.Values values(List<HeldAttempt> attempts, String worker) {
        List<UUID> ids = new ArrayList<>(attempts.size());
        long[] tokens = new long[attempts.size()];
        List<@Nullable String> results = new ArrayList<>(attempts.size());
        for (int i = 0; i < attempts.size(); i++) {
            HeldAttempt attempt = attempts.get(i);
            ids.add(attempt.runId());
            tokens[i] = attempt.fencingToken();
            results.add(attempt.resultJson());
        }
        return PARAMETERS
                .values()
                .set("actor", worker)
                .set("ids", ArrayParameters.uuids(ids))
                .set("tokens", ArrayParameters.longs(tokens))
                .set("results", ArrayParameters.texts(results));
    }
}

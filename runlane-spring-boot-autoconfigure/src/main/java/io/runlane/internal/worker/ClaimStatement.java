package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.StatementParameters;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * One claim statement of one group of a worker's queues, with its values (the worker, its lease, the queues and
 * tasks), which stay the same from poll to poll: the statement is made positional, and its values bound to their
 * positions, once per limit it is sent with ({@link RunClaims#CANDIDATES} writes the limit into the text), and a
 * poll sends it as it is. Building the text and the values on every poll, two copies of a 2 KB statement and a
 * 1 KB array, cost more than the claim's answer.
 */
final class ClaimStatement {

    /** The text for one limit and its values by position. */
    private record Prepared(String sql, Object[] arguments) {}

    private final JdbcClient jdbc;

    private final IntFunction<PositionalStatement> statementForLimit;

    private final StatementParameters.Values values;

    private final Map<Integer, Prepared> byLimit = new ConcurrentHashMap<>();

    /**
     * @param statementForLimit the statement for a limit, made positional for values of the shape of {@code values}
     * @param values its values, the same for every limit
     */
    ClaimStatement(
            JdbcClient jdbc, IntFunction<PositionalStatement> statementForLimit, StatementParameters.Values values) {
        this.jdbc = jdbc;
        this.statementForLimit = statementForLimit;
        this.values = values;
    }

    /** Claims up to {@code limit} runs; each carries when the statement was sent ({@link RunClaims#claimedAt}). */
    List<ClaimedRun> claim(int limit) {
        Prepared prepared = prepared(limit);
        return send(jdbc, prepared.sql(), prepared.arguments());
    }

    /** Sends a claim statement with its values by position; each run carries when it was sent. */
    static List<ClaimedRun> send(JdbcClient jdbc, String sql, Object[] arguments) {
        long sent = System.nanoTime();
        return jdbc.sql(sql).params(arguments).query(RunClaims.claimedAt(sent)).list();
    }

    private Prepared prepared(int limit) {
        Prepared prepared = byLimit.get(limit);
        if (prepared == null) {
            PositionalStatement statement = statementForLimit.apply(limit);
            prepared = new Prepared(statement.sql(), statement.arguments(values));
            byLimit.put(limit, prepared);
        }
        return prepared;
    }
}

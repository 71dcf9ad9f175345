package io.runlane.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What the plan tests share: seeding a schema's runs table with many finished runs in one statement, and {@code
 * EXPLAIN ANALYZE} of a statement, printed for the record so that a failing assertion can be read against the plan.
 */
public final class QueryPlans {

    /** Numbers the statements {@link #explainGeneric} prepares, whose names outlive a failed transaction. */
    private static final AtomicInteger EXPLAINED = new AtomicInteger();

    private QueryPlans() {}

    /**
     * Inserts {@code count} finished runs spread evenly over the {@code span} before now, over 40 tasks ({@code
     * task-0}..) and 5 queues ({@code queue-0}..); every {@code failedEvery}th run is {@code FAILED} (0: none), the rest
     * {@code SUCCEEDED}, each having run for 2 seconds.
     */
    public static void insertFinishedRuns(
            DataSource dataSource, String schema, int count, Duration span, int failedEvery) {
        String failed = failedEvery > 0 ? "g % " + failedEvery + " = 0" : "false";
        new JdbcTemplate(dataSource).update("""
                INSERT INTO %1$s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                     created_at, updated_at, finished_at, attempts, fencing_token)
                SELECT gen_random_uuid(), 'default', 'task-' || (g %% 40), 'queue-' || (g %% 5),
                       CASE WHEN %2$s THEN 'FAILED' ELSE 'SUCCEEDED' END, '{}', 3,
                       f, f - interval '2 seconds', f, f, 1, 1
                FROM (SELECT g, now() - (g * interval '%3$d seconds') / %4$d AS f FROM generate_series(1, %4$d) g) runs
                """.formatted(schema, failed, span.toSeconds(), count));
    }

    /** The plan of {@code statement} with {@code parameters}, executed ({@code ANALYZE, BUFFERS}) and printed. */
    public static String explain(DataSource dataSource, String statement, SqlParameterSource parameters) {
        List<String> lines = new NamedParameterJdbcTemplate(dataSource)
                .queryForList("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement, parameters, String.class);
        String plan = String.join("\n", lines);
        System.out.println("Plan of\n" + statement + "\n" + plan + "\n");
        return plan;
    }

    /**
     * {@code EXPLAIN (options) EXECUTE} of {@code statement} prepared on the server and planned generically, as a
     * statement that runs under {@code plan_cache_mode = force_generic_plan} is, in a transaction rolled back
     * afterwards: the plan that the statement's executions reuse, with none of the bound values known to the planner.
     * Every named parameter becomes a positional one ({@code $1}, ...; a collection one per element), and the same
     * values, in the same order, are bound to {@code EXECUTE}.
     */
    public static String explainGeneric(
            DataSource dataSource, String statement, SqlParameterSource parameters, String options) {
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(statement);
        String positional = NamedParameterUtils.substituteNamedParameters(parsed, parameters);
        StringBuilder numbered = new StringBuilder(positional.length());
        int count = 0;
        for (char c : positional.toCharArray()) {
            if (c == '?') {
                numbered.append('$').append(++count);
            } else {
                numbered.append(c);
            }
        }
        List<Object> values = new ArrayList<>();
        for (Object value : NamedParameterUtils.buildValueArray(parsed, parameters, null)) {
            Object unwrapped = value instanceof SqlParameterValue typed ? typed.getValue() : value;
            if (unwrapped instanceof Iterable<?> elements) {
                elements.forEach(values::add);
            } else {
                values.add(value);
            }
        }
        String prepared = numbered.toString();
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        String name = "runlane_explained_" + EXPLAINED.incrementAndGet();
        String plan = transaction.execute(status -> {
            status.setRollbackOnly();
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("SET LOCAL plan_cache_mode = force_generic_plan");
            jdbc.execute("PREPARE " + name + " AS " + prepared);
            // EXPLAIN takes no bound parameters: each value is written as the literal PostgreSQL quotes it.
            String arguments = String.join(
                    ", ",
                    values.stream()
                            .map(value -> jdbc.queryForObject("SELECT quote_nullable(?)", String.class, value))
                            .toList());
            List<String> lines = jdbc.queryForList(
                    "EXPLAIN (" + options + ") EXECUTE " + name + "(" + arguments + ")", String.class);
            jdbc.execute("DEALLOCATE " + name);
            return String.join("\n", lines);
        });
        System.out.println("Generic plan of\n" + statement + "\n" + plan + "\n");
        return plan;
    }
}

package io.runlane.testsupport;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * What the plan tests share: seeding a schema's runs table with many finished runs in one statement, and {@code
 * EXPLAIN ANALYZE} of a statement, printed for the record so that a failing assertion can be read against the plan.
 */
public final class QueryPlans {

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
}

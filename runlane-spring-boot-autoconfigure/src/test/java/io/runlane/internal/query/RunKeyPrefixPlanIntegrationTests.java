package io.runlane.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunQuery;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.query.RunListing.Statement;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The runs list's key filters read the range of the key's index, never the whole runs table (S-OP-15). Among 200,000
 * retained runs, each with an idempotency key and half with a singleton key, {@code EXPLAIN ANALYZE} of the list's
 * statement for a key prefix, and for an exact key, shows a scan of {@code runs_idempotency_key_idx} or {@code
 * runs_singleton_key_idx} and no sequential scan of {@code runs}; so does the plan made once for any parameter (a
 * generic plan, which the driver's server-prepared statements may get), which a {@code LIKE 'prefix%'} could not
 * use. The plans are printed for the record.
 */
@RunlaneDatabaseTest
class RunKeyPrefixPlanIntegrationTests {

    private static final int RUNS = 200_000;

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    @FreshSchema("keyprefix")
    private static String schema;

    private static RunListing listing;

    @BeforeAll
    static void fill() {
        TestRunlane.start(dataSource, schema, TestTasks.all()).stop();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.update("""
                INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                     created_at, updated_at, finished_at, attempts, fencing_token,
                                     idempotency_key, singleton_key)
                SELECT gen_random_uuid(), 'default', 'task-' || (g %% 40), 'queue-' || (g %% 5), 'SUCCEEDED', '{}', 3,
                       f, f - interval '2 seconds', f, f, 1, 1,
                       'order-' || g, CASE WHEN g %% 2 = 0 THEN 'tenant-' || g || '.sync' END
                FROM (SELECT g, now() - (g * interval '30 days') / %d AS f FROM generate_series(1, %2$d) g) runs
                """.formatted(schema, RUNS));
        jdbc.execute("VACUUM ANALYZE " + schema + ".runs");
        listing = new RunListing(JdbcClient.create(dataSource), new SqlTemplate(schema), "default");
    }

    @Test
    @DisplayName("S-OP-15: an idempotency key prefix reads the range of runs_idempotency_key_idx")
    void anIdempotencyKeyPrefixReadsTheKeyIndex() throws SQLException {
        RunQuery query = RunQuery.builder().idempotencyKeyPrefix("order-12345").build();

        assertThat(explain(listing.statement(query)))
                .contains("runs_idempotency_key_idx")
                .doesNotContain("Seq Scan");
        assertThat(generic(listing.statement(query)))
                .contains("runs_idempotency_key_idx")
                .doesNotContain("Seq Scan");
        assertThat(listing.list(query).items())
                .extracting(io.runlane.Run::idempotencyKey)
                .hasSize(11)
                .allMatch(key -> key.startsWith("order-12345"));
    }

    @Test
    @DisplayName("S-OP-15: a singleton key prefix reads the range of runs_singleton_key_idx")
    void aSingletonKeyPrefixReadsTheKeyIndex() throws SQLException {
        RunQuery query = RunQuery.builder().singletonKeyPrefix("tenant-1234").build();

        assertThat(explain(listing.statement(query)))
                .contains("runs_singleton_key_idx")
                .doesNotContain("Seq Scan");
        assertThat(generic(listing.statement(query)))
                .contains("runs_singleton_key_idx")
                .doesNotContain("Seq Scan");
        // the even numbers 1234, 1234x and 1234xx: 1 + 5 + 50
        assertThat(listing.list(RunQuery.builder()
                                .singletonKeyPrefix("tenant-1234")
                                .limit(500)
                                .build())
                        .items())
                .hasSize(56)
                .allMatch(run -> run.singletonKey().startsWith("tenant-1234"));
    }

    @Test
    @DisplayName("S-OP-15: an exact key reads the same index")
    void anExactKeyReadsTheKeyIndex() {
        RunQuery query = RunQuery.builder().idempotencyKey("order-4242").build();

        assertThat(explain(listing.statement(query)))
                .contains("runs_idempotency_key_idx")
                .doesNotContain("Seq Scan");
        assertThat(listing.list(query).items()).hasSize(1);
    }

    private static String explain(Statement statement) {
        List<String> lines = new NamedParameterJdbcTemplate(dataSource)
                .queryForList(
                        "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement.sql(), statement.params(), String.class);
        String plan = String.join("\n", lines);
        System.out.println("Plan of\n" + statement.sql() + "\n" + plan + "\n");
        return plan;
    }

    /** The plan PostgreSQL makes once for any value of the parameters, as for a prepared statement reused. */
    private static String generic(Statement statement) throws SQLException {
        String positional = NamedParameterUtils.substituteNamedParameters(statement.sql(), statement.params());
        StringBuilder prepared = new StringBuilder();
        int n = 0;
        for (char c : positional.toCharArray()) {
            prepared.append(c == '?' ? "$" + (++n) : String.valueOf(c));
        }
        List<String> values = new ArrayList<>();
        for (Object value : NamedParameterUtils.buildValueArray(
                NamedParameterUtils.parseSqlStatement(statement.sql()), statement.params(), null)) {
            Object plain =
                    (value instanceof org.springframework.jdbc.core.SqlParameterValue typed) ? typed.getValue() : value;
            values.add(
                    plain instanceof Number
                            ? plain.toString()
                            : "'" + plain.toString().replace("'", "''") + "'");
        }
        try (Connection connection = dataSource.getConnection();
                var sql = connection.createStatement()) {
            sql.execute("SET plan_cache_mode = force_generic_plan");
            sql.execute("PREPARE listing AS " + prepared);
            List<String> lines = new ArrayList<>();
            try (ResultSet plan =
                    sql.executeQuery("EXPLAIN (COSTS OFF) EXECUTE listing(" + String.join(", ", values) + ")")) {
                while (plan.next()) {
                    lines.add(plan.getString(1));
                }
            } finally {
                sql.execute("DEALLOCATE listing");
                sql.execute("RESET plan_cache_mode");
            }
            String text = String.join("\n", lines);
            System.out.println("Generic plan of\n" + prepared + "\n" + text + "\n");
            return text;
        }
    }
}

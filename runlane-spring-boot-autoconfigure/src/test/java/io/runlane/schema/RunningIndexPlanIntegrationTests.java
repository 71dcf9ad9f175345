package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Changeset 011: statements about given running runs (completions, heartbeats, steps) find them by primary key, and
 * only the range queries over all running runs (recovery, concurrency counts) use {@code runs_running_idx}. A bitmap
 * scan of that index visits the entry of every run that finished since the last vacuum, so choosing it for a batch
 * of ids made completions slower the more runs had finished (issue 16, steady-load latency).
 */
@RunlaneDatabaseTest
class RunningIndexPlanIntegrationTests {

    private static final String RUNNING_INDEX = "runs_running_idx";

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    @FreshSchema("runidx")
    private static String schema;

    private static JdbcTemplate jdbc;

    private static List<String> runningIds;

    @BeforeAll
    static void fill() {
        TestRunlane.start(dataSource, schema, TestTasks.all()).stop();
        jdbc = new JdbcTemplate(dataSource);
        jdbc.update(("INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,"
                        + " created_at, updated_at, finished_at, attempts, fencing_token)"
                        + " SELECT gen_random_uuid(), 'default', 'orders.confirm', 'default', 'SUCCEEDED', '{}', 3,"
                        + " now(), now(), now(), now(), 1, 1 FROM generate_series(1, 20000)")
                .formatted(schema));
        jdbc.update(("UPDATE %s.runs SET status = 'RUNNING', finished_at = NULL, lease_owner = 'worker-1',"
                        + " lease_expires_at = now() + interval '1 minute'"
                        + " WHERE id IN (SELECT id FROM %1$s.runs LIMIT 3)")
                .formatted(schema));
        jdbc.execute("ANALYZE " + schema + ".runs");
        runningIds =
                jdbc.queryForList("SELECT id::text FROM " + schema + ".runs WHERE status = 'RUNNING'", String.class);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "S-EX-3, S-EX-15: a batch completion of held runs"
                        + "|SELECT r.id FROM %s.runs r, unnest(cast('{%s}' AS uuid[]), cast('{1,1,1}' AS bigint[]))"
                        + " AS held(id, token) WHERE r.id = held.id AND r.fencing_token = held.token"
                        + " AND r.status IN ('RUNNING', 'CANCELLATION_REQUESTED')",
                "S-EX-2: a heartbeat's lookup of the worker's runs"
                        + "|SELECT id FROM %s.runs WHERE id = ANY(cast('{%s}' AS uuid[])) AND lease_owner = 'worker-1'"
                        + " AND status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND environment = 'default'"
            })
    @DisplayName("Issue 16: statements about given running runs find them by primary key")
    void givenRunsAreFoundByPrimaryKey(String statement, String query) {
        assertThat(plan(query)).as(statement).contains("runs_pkey").doesNotContain(RUNNING_INDEX);
    }

    @Test
    @DisplayName("S-EX-7, S-QC-2: recovery and concurrency counts still read the running runs from their index")
    void rangeQueriesKeepTheRunningIndex() {
        String recovery = plan("SELECT * FROM %s.runs WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED')"
                + " AND lease_expires_at < statement_timestamp() AND environment = 'default'"
                + " ORDER BY lease_expires_at LIMIT 10 -- %s");
        String counts = plan("SELECT concurrency_key, count(*) FROM %s.runs"
                + " WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at IS NOT NULL"
                + " AND queue = 'default' AND environment = 'default' GROUP BY concurrency_key -- %s");

        assertThat(recovery).contains(RUNNING_INDEX);
        assertThat(counts).contains(RUNNING_INDEX);
    }

    private static String plan(String query) {
        String ids = String.join(",", runningIds);
        List<String> lines = jdbc.queryForList("EXPLAIN " + query.formatted(schema, ids), String.class);
        return String.join("\n", lines);
    }
}

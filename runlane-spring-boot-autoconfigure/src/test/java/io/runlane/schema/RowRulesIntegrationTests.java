package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RowRules;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Changeset 012 (S-OP-12): the run table's row rules are no longer CHECK constraints, which PostgreSQL prepared afresh
 * for every write of a run; the test suite checks them instead, against every row a test leaves behind
 * ({@link TestRunlane#stop()}). This shows that the check would catch each rule broken.
 */
@RunlaneDatabaseTest
class RowRulesIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource dataSource;

    @FreshSchema("rowrules")
    private static String schema;

    private static JdbcTemplate jdbc;

    @BeforeAll
    static void migrate() {
        TestRunlane.start(dataSource, schema, TestTasks.all()).stop();
        jdbc = new JdbcTemplate(dataSource);
    }

    @Test
    @DisplayName("S-OP-12: rows written by the engine keep every rule; a row that breaks each is stored, and reported")
    void brokenRulesAreReported() {
        TestRunlane runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
        runlane.template().trigger(TestTasks.ConfirmOrder.class, new TestTasks.ConfirmOrder.Payload("rules-1", 1));
        assertThat(RowRules.broken(jdbc, schema)).isEmpty();

        insert("'BOGUS'", "NULL", "NULL", "NULL", 0, 3);
        insert("'SUCCEEDED'", "NULL", "NULL", "NULL", 0, 3);
        insert("'QUEUED'", "NULL", "NULL", "1000", 0, 3);
        insert("'QUEUED'", "NULL", "'rules-key'", "-1", 0, 3);
        insert("'QUEUED'", "NULL", "NULL", "NULL", -1, 3);
        insert("'QUEUED'", "NULL", "NULL", "NULL", 0, 0);

        assertThat(RowRules.broken(jdbc, schema))
                .hasSize(6)
                .anySatisfy(broken ->
                        assertThat(broken).startsWith("status is known: ").endsWith(" BOGUS"))
                .anySatisfy(broken ->
                        assertThat(broken).startsWith("finished_at is set exactly when the status is terminal: "))
                .filteredOn(broken -> broken.startsWith("an idempotency TTL needs a key and is not negative: "))
                .hasSize(2);
        assertThat(RowRules.broken(jdbc, schema))
                .filteredOn(broken -> broken.startsWith("attempts are not negative and the budget is positive: "))
                .hasSize(2);
        assertThatThrownBy(runlane::stop).isInstanceOf(AssertionError.class).hasMessageContaining("BOGUS");
        jdbc.update("DELETE FROM " + schema + ".runs");
    }

    private void insert(String status, String finishedAt, String key, String ttl, int attempts, int maxAttempts) {
        jdbc.update(("INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, idempotency_key,"
                        + " idempotency_key_ttl_ms, attempts, max_attempts, run_at, created_at, updated_at,"
                        + " finished_at) VALUES (gen_random_uuid(), 'default', 'orders.confirm', 'default', %s, '{}',"
                        + " %s, %s, %d, %d, now(), now(), now(), %s)")
                .formatted(schema, status, key, ttl, attempts, maxAttempts, finishedAt));
    }
}

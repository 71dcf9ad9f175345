package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.registry.ThrottlePolicy;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-EX-1, S-PR-2, S-QC-2: a worker's claims are planned once per connection, not on every execution. PostgreSQL plans
 * a server-prepared statement afresh for its first five executions, then keeps a generic plan only if that plan does
 * not look dearer than the custom ones did; a claim whose generic plan looked ten times dearer (the row estimate of
 * {@code unnest} over its bound queue array) was planned on every poll, which took twice as long as running it and
 * halved the throughput of short runs. Each claim here runs twenty times on a new connection of its own, and {@code
 * pg_prepared_statements} (PostgreSQL 14 and later) tells how its executions were planned.
 */
@RunlaneDatabaseTest
class ClaimPlanCacheIntegrationTests {

    private static final int EXECUTIONS = 20;

    private static final Duration LEASE = Duration.ofMinutes(5);

    private static final List<String> TASKS = List.of("orders.confirm", "orders.other", "orders.third");

    @Pool(size = 2)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private HikariDataSource sessionPool;

    private Connection connection;

    private JdbcTemplate session;

    private RunClaims claims;

    private BatchCompletions completions;

    @BeforeAll
    static void fill(@FreshSchema("plancache") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new ConfirmOrder());
        String insert = "INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,"
                + " created_at, updated_at, attempts, fencing_token, priority)"
                + " SELECT gen_random_uuid(), 'default', 'orders.confirm', %s, 'QUEUED', '{}', 3,"
                + " now() - g * interval '1 millisecond', now(), now(), 0, 0, (g %% 3) - 1"
                + " FROM generate_series(1, %d) g";
        runlane.jdbc().update(insert.formatted(schema, "'default'", 4_000));
        runlane.jdbc().update(insert.formatted(schema, "'other'", 2_000));
        runlane.jdbc()
                .update(
                        "INSERT INTO " + schema + ".runs (id, environment, task_id, queue, status, payload,"
                                + " max_attempts, run_at, created_at, updated_at, attempts, fencing_token, priority, throttle_key)"
                                + " SELECT gen_random_uuid(), 'default', 'orders.throttled', 'default', 'QUEUED', '{}', 3,"
                                + " now() - g * interval '1 millisecond', now(), now(), 0, 0, 0, 'key-' || g FROM generate_series(1, 400) g");
        runlane.jdbc().execute("VACUUM ANALYZE " + schema + ".runs");
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    @BeforeEach
    void openOneSession() throws SQLException {
        assumeThat(runlane.jdbc().queryForObject("SELECT current_setting('server_version_num')::int", Integer.class))
                .as("pg_prepared_statements counts generic and custom plans from PostgreSQL 14")
                .isGreaterThanOrEqualTo(140_000);
        sessionPool = TestDatabase.newDataSource(1);
        connection = sessionPool.getConnection();
        SingleConnectionDataSource single = new SingleConnectionDataSource(connection, true);
        JdbcClient jdbc = JdbcClient.create(single);
        SqlTemplate sql = new SqlTemplate(runlane.schema());
        claims = new RunClaims(jdbc, new TransactionTemplate(new DataSourceTransactionManager(single)), sql, "default");
        completions = new BatchCompletions(jdbc, sql);
        session = new JdbcTemplate(single);
    }

    @AfterEach
    void closeSession() throws SQLException {
        if (connection != null) {
            connection.close();
            sessionPool.close();
        }
    }

    @Test
    @DisplayName("S-EX-1, S-PR-2: a claim of one queue's due runs keeps one generic plan")
    void claimOfOneQueueIsPlannedOnce() {
        assertPlannedOnce("WITH RECURSIVE levels", () -> claims.claimDue("w-1", List.of("default"), TASKS, 8, LEASE));
    }

    @Test
    @DisplayName("S-EX-1, S-PR-2: a claim of several queues' due runs keeps one generic plan")
    void claimOfSeveralQueuesIsPlannedOnce() {
        assertPlannedOnce(
                "WITH RECURSIVE levels", () -> claims.claimDue("w-2", List.of("default", "other"), TASKS, 8, LEASE));
    }

    @Test
    @DisplayName("S-QC-2, S-PR-2: a claim within a queue's concurrency limit keeps one generic plan")
    void claimWithinALimitIsPlannedOnce() {
        assertPlannedOnce(
                "WITH RECURSIVE running AS", () -> claims.claimDueWithinLimit("w-3", "other", 1_000, TASKS, 8, LEASE));
    }

    @Test
    @DisplayName("S-TH-2, S-PR-2: a throttled task's claims keep one generic plan each")
    void throttledClaimsArePlannedOnce() {
        ThrottledClaims throttled = claims.throttled();
        ThrottlePolicy throttle = new ThrottlePolicy(2, Duration.ofHours(1));
        assertPlannedOnce(", levels(priority) AS", () -> {
            List<ClaimedRun> runs = throttled
                    .claim("w-5", "orders.throttled", throttle, List.of("default"), null, 8, LEASE)
                    .runs();
            assertThat(runs)
                    .as("the throttled claim keeps its keys' starts within the throttle")
                    .hasSize(8);
            return runs;
        });
    }

    @ParameterizedTest(name = "batches of {0}")
    @ValueSource(ints = {1, 2, 8})
    @DisplayName("S-EX-3, S-RL-2: completing batches of claimed runs, one at a time too, keeps one generic plan")
    void completionIsPlannedOnce(int size) {
        List<List<ClaimedRun>> batches = new ArrayList<>();
        for (int i = 0; i < EXECUTIONS; i++) {
            batches.add(claims.claimDue("w-4", List.of("default"), TASKS, size, LEASE));
        }
        List<Map<?, ?>> answers = new ArrayList<>();
        assertPlannedOnce("LIMIT " + size + ") AS held", () -> {
            List<ClaimedRun> batch = batches.remove(0);
            answers.add(completions.complete(
                    batch.stream()
                            .map(run ->
                                    new BatchCompletions.HeldAttempt(run.run().id(), run.fencingToken()))
                            .toList(),
                    "w-4"));
            return batch;
        });
        assertThat(answers).allSatisfy(completed -> assertThat(completed).hasSize(size));
    }

    /**
     * Runs {@code statement} {@value #EXECUTIONS} times on the session's connection, each claiming runs, then asserts
     * that the prepared statement whose text contains {@code marker} was planned generically after its first custom
     * plans: at most the five that PostgreSQL always makes, and every later execution on the generic plan.
     */
    private void assertPlannedOnce(String marker, Supplier<List<ClaimedRun>> statement) {
        for (int i = 0; i < EXECUTIONS; i++) {
            assertThat(statement.get()).as("execution %d claimed runs", i + 1).isNotEmpty();
        }
        Map<String, Object> plans = session.queryForMap(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE strpos(statement, ?) > 0",
                marker);
        long generic = ((Number) plans.get("generic_plans")).longValue();
        long custom = ((Number) plans.get("custom_plans")).longValue();
        assertThat(custom).as("custom plans (generic: %d)", generic).isLessThanOrEqualTo(5);
        assertThat(generic).as("generic plans (custom: %d)", custom).isGreaterThanOrEqualTo(EXECUTIONS - 10);
    }
}

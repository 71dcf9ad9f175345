package io.runlane.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * S-OP-13: the engine's statements are planned once per connection, not on every execution. PostgreSQL plans a
 * prepared statement afresh for its first five executions and then keeps a generic plan unless that plan looks dearer
 * than the custom ones did; a statement whose generic plan always looks dearer is planned on every execution, which
 * for the engine's larger statements costs more than running them (a claim planned on every poll halved the throughput
 * of short runs). Triggers of several shapes, steps, claims, completions and heartbeats run here many times on a pool
 * of three connections that prepares every statement on the server from its first execution; then {@code
 * pg_prepared_statements} of each connection (PostgreSQL 14 and later) must show no statement executed eight times or
 * more that was planned for more than its first five executions.
 */
class StatementPlanCacheIntegrationTests {

    private static final int CONNECTIONS = 3;

    private static final int ROUNDS = 16;

    /** A no-op run. */
    @Task(id = "plancache.plain")
    public static class Plain implements TaskHandler<Plain.Payload> {

        public record Payload(String value) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Three durable steps and a result. */
    @Task(id = "plancache.steps")
    public static class Steps implements TaskFunction<Steps.Payload, String> {

        public record Payload(String value) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            String first = context.step("first", String.class, step -> payload.value());
            String second = context.step("second", String.class, step -> first + "-2");
            return context.step("third", String.class, step -> second + "-3");
        }
    }

    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl());
        config.setMaximumPoolSize(CONNECTIONS);
        config.setMinimumIdle(CONNECTIONS);
        config.addDataSourceProperty("prepareThreshold", 1);
        dataSource = new HikariDataSource(config);
        assumeThat(new JdbcTemplate(dataSource)
                        .queryForObject("SELECT current_setting('server_version_num')::int", Integer.class))
                .as("pg_prepared_statements counts generic and custom plans from PostgreSQL 14")
                .isGreaterThanOrEqualTo(140_000);
        runlane = TestRunlane.withExecution(
                        dataSource,
                        TestDatabase.freshSchema(dataSource, "plancache"),
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(50)),
                        EngineListener.NONE,
                        new Plain(),
                        new Steps())
                .startWorker();
    }

    @AfterEach
    void stop() {
        if (runlane != null) {
            runlane.stop();
        }
        dataSource.close();
    }

    @Test
    @DisplayName("S-OP-13: no statement of triggers, claims, steps, completions and heartbeats is planned on every"
            + " execution")
    void noStatementIsPlannedOnEveryExecution() throws SQLException {
        RunlaneTemplate template = runlane.template();
        for (int round = 0; round < ROUNDS; round++) {
            List<UUID> runs = new ArrayList<>();
            runs.add(template.trigger("plancache.plain", new Plain.Payload("a" + round))
                    .runId());
            TriggerOptions keyed =
                    TriggerOptions.builder().idempotencyKey("key-" + round).build();
            runs.add(template.trigger("plancache.steps", new Steps.Payload("s" + round), keyed)
                    .runId());
            template.trigger("plancache.steps", new Steps.Payload("s" + round), keyed);
            runs.add(template.trigger(
                            "plancache.plain",
                            new Plain.Payload("d" + round),
                            TriggerOptions.builder()
                                    .delay(Duration.ofMillis(1))
                                    .singletonKey("single-" + round)
                                    .build())
                    .runId());
            template.triggerAll(List.of(
                            TriggerRequest.of("plancache.plain", new Plain.Payload("b" + round)),
                            TriggerRequest.of("plancache.plain", new Plain.Payload("c" + round))))
                    .forEach(result -> runs.add(result.runId()));
            for (UUID run : runs) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> runlane.run(run).status() == RunStatus.SUCCEEDED);
            }
        }
        runlane.stop();
        runlane = null;

        List<String> plannedEachTime = new ArrayList<>();
        List<String> warm = new ArrayList<>();
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                connections.add(dataSource.getConnection());
            }
            for (Connection connection : connections) {
                new JdbcTemplate(new SingleConnectionDataSource(connection, true))
                        .query(
                                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
                                        + " WHERE generic_plans + custom_plans >= 8",
                                rs -> {
                                    String statement = rs.getString("statement").replaceAll("\\s+", " ");
                                    warm.add(statement);
                                    if (rs.getLong("custom_plans") > 5) {
                                        plannedEachTime.add(rs.getLong("custom_plans") + " custom, "
                                                + rs.getLong("generic_plans") + " generic: " + statement);
                                    }
                                });
            }
        } finally {
            for (Connection connection : connections) {
                connection.close();
            }
        }

        assertThat(warm)
                .as("statements executed eight times or more on one connection")
                .anySatisfy(statement -> assertThat(statement).contains("WITH RECURSIVE levels"))
                .anySatisfy(statement -> assertThat(statement).contains("INSERT INTO"))
                .anySatisfy(statement -> assertThat(statement).contains("run_steps"));
        assertThat(plannedEachTime).as("statements planned on every execution").isEmpty();
    }
}

package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.repository.config.AbstractJdbcConfiguration;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.relational.core.mapping.NamingStrategy;
import org.springframework.data.relational.core.mapping.Table;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Spring Data JDBC repositories inside a transactional step (S-ST-8, S-TR-10): an application with a {@link
 * CrudRepository} on Runlane's {@code DataSource} saves through it in a step; the save joins the step's transaction,
 * so it is rolled back with a failing step and committed once with the step's record.
 */
@RunlaneDatabaseTest
class TransactionalStepRepositoryIntegrationTests {

    /** What the handler saw, by "<run id>/<what>/<attempt>". */
    static final Map<String, Object> SEEN = new ConcurrentHashMap<>();

    /** An order row of the application's own table; no unique constraint, so a second save would show. */
    @Table("repo_orders")
    record OrderRow(@Id Long id, UUID runId, String stepId, int attempt) {}

    interface OrderRepository extends CrudRepository<OrderRow, Long> {

        List<OrderRow> findByRunId(UUID runId);

        @Query("SELECT txid_current()")
        long transactionId();
    }

    /**
     * Saves an order through the repository in a transactional step. Attempt 1 fails inside the step after the save,
     * attempt 2 fails after the step, attempt 3 gets the recorded result.
     */
    @Task(id = "txrepo.order", maxAttempts = 3, backoff = "10ms")
    static class SaveOrder implements TaskHandler<SaveOrder.Payload> {

        record Payload(String order) {}

        private final OrderRepository orders;

        private final JdbcTemplate jdbc;

        SaveOrder(OrderRepository orders, JdbcTemplate jdbc) {
            this.orders = orders;
            this.jdbc = jdbc;
        }

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            int attempt = context.attempt();
            String saved = context.transactionalStep("order", String.class, step -> {
                seen(
                        step.runId(),
                        "rowsBefore",
                        attempt,
                        orders.findByRunId(step.runId()).size());
                orders.save(new OrderRow(null, step.runId(), step.stepId(), attempt));
                seen(
                        step.runId(),
                        "rowsAfter",
                        attempt,
                        orders.findByRunId(step.runId()).size());
                seen(
                        step.runId(),
                        "sameTransaction",
                        attempt,
                        orders.transactionId() == jdbc.queryForObject("SELECT txid_current()", Long.class));
                if (attempt == 1) {
                    throw new IllegalStateException("fails after the save");
                }
                return "saved-" + payload.order() + "-" + attempt;
            });
            seen(context.runId(), "result", attempt, saved);
            if (attempt == 2) {
                throw new IllegalStateException("fails after the step");
            }
        }

        private static void seen(UUID runId, String what, int attempt, Object value) {
            SEEN.put(runId + "/" + what + "/" + attempt, value);
        }
    }

    /** The application: Boot's JDBC auto-configuration, Runlane, and Spring Data JDBC configured by the application. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JdbcTemplateAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @EnableJdbcRepositories(considerNestedRepositories = true, basePackageClasses = OrderRepository.class)
    @Import(SaveOrder.class)
    static class Application extends AbstractJdbcConfiguration {

        /** The entity lives in the test's schema. */
        @Bean
        NamingStrategy namingStrategy(@Value("${runlane.schema.name}") String schema) {
            return new NamingStrategy() {
                @Override
                public String getSchema() {
                    return schema;
                }
            };
        }
    }

    @Pool(size = 2)
    private HikariDataSource admin;

    @FreshSchema("txrepo")
    private String schema;

    private ConfigurableApplicationContext context;

    @BeforeEach
    void start() {
        context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(Map.of(
                        "spring.datasource.url",
                        TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size",
                        "6",
                        "runlane.schema.name",
                        schema,
                        "runlane.worker.poll-interval",
                        "50ms"))
                .run();
        // the application's own table, next to Runlane's tables in the schema Runlane created
        new JdbcTemplate(admin)
                .execute("CREATE TABLE " + schema + ".repo_orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                        + " run_id uuid NOT NULL, step_id text NOT NULL, attempt int NOT NULL)");
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    @DisplayName("S-ST-8, S-TR-10: a Spring Data JDBC repository's save inside a transactional step joins its"
            + " transaction: rolled back when the step fails after it, committed once by the retry, and a failure"
            + " after the step gets the recorded result")
    void repositorySaveInsideATransactionalStepIsRolledBackWithItAndCommittedOnce() {
        RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);
        OrderRepository orders = context.getBean(OrderRepository.class);
        UUID runId =
                runlane.trigger(SaveOrder.class, new SaveOrder.Payload("r1")).runId();

        Run run = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> runlane.runs().get(runId).orElseThrow(),
                        done -> done.status().isTerminal());
        assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isEqualTo(3);

        assertThat(SEEN.get(runId + "/rowsAfter/1"))
                .as("attempt 1 saved its row and read it back in the step's transaction")
                .isEqualTo(1);
        assertThat(SEEN.get(runId + "/sameTransaction/1"))
                .as("the repository ran in the step's transaction")
                .isEqualTo(true);
        assertThat(SEEN.get(runId + "/rowsBefore/2"))
                .as("attempt 1's save was rolled back with its failing step")
                .isEqualTo(0);
        assertThat(SEEN).doesNotContainKey(runId + "/rowsBefore/3");
        assertThat(SEEN.get(runId + "/result/3"))
                .as("attempt 3 got the recorded result without running the step")
                .isEqualTo("saved-r1-2");

        assertThat(orders.findByRunId(runId))
                .singleElement()
                .satisfies(row -> assertThat(row.attempt()).isEqualTo(2));
        assertThat(runlane.runs().steps(runId))
                .singleElement()
                .satisfies(step -> assertThat(step.resultJson()).isEqualTo("\"saved-r1-2\""));
        assertThat(runlane.runs().events(runId))
                .filteredOn(event -> event.type() == RunEventType.STEP_COMPLETED)
                .hasSize(1);
    }
}

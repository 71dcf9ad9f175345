package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Boot application whose Hikari pool hands out connections with auto-commit off (S-TR-14): triggers are stored,
 * runs execute once, and a trigger in the application's transaction commits or rolls back with it.
 */
@RunlaneDatabaseTest
class AutoCommitOffBootIntegrationTests {

    static final Map<UUID, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    @Task(id = "boot.autocommit")
    public static class Counted implements TaskHandler<Counted.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            CALLS.computeIfAbsent(context.runId(), id -> new AtomicInteger()).incrementAndGet();
        }
    }

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("boot_autocommit_off")
    private static String schema;

    private static ConfigurableApplicationContext context;

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .properties(Map.of(
                        "spring.datasource.url", TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.auto-commit", "false",
                        "spring.datasource.hikari.maximum-pool-size", "8",
                        "runlane.schema.name", schema,
                        "runlane.worker.poll-interval", "100ms"))
                .run();
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static String status(UUID runId) {
        return new JdbcTemplate(admin)
                .queryForList("SELECT status FROM " + schema + ".runs WHERE id = ?", String.class, runId).stream()
                        .findFirst()
                        .orElse("ABSENT");
    }

    @Test
    @DisplayName("S-TR-14: with spring.datasource.hikari.auto-commit=false a trigger is stored and executed once")
    void triggerIsStoredAndExecutedOnce() throws Exception {
        assertThat(context.getBean(DataSource.class)
                        .unwrap(HikariDataSource.class)
                        .isAutoCommit())
                .isFalse();
        UUID runId = context.getBean(RunlaneTemplate.class)
                .trigger("boot.autocommit", new Counted.Payload("one"))
                .runId();

        await().atMost(Duration.ofSeconds(30)).until(() -> status(runId), "SUCCEEDED"::equals);
        assertThat(CALLS.get(runId)).hasValue(1);
    }

    @Test
    @DisplayName(
            "S-TR-3, S-TR-14: with auto-commit off a trigger joins the application's transaction and rolls back with it")
    void triggerJoinsTheApplicationsTransaction() {
        TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
        RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);

        UUID rolledBack = transactions.execute(status -> {
            UUID id = runlane.trigger("boot.autocommit", new Counted.Payload("rolled back"))
                    .runId();
            status.setRollbackOnly();
            return id;
        });
        UUID committed =
                transactions.execute(status -> runlane.trigger("boot.autocommit", new Counted.Payload("committed"))
                        .runId());

        assertThat(status(rolledBack)).isEqualTo("ABSENT");
        await().atMost(Duration.ofSeconds(30)).until(() -> status(committed), "SUCCEEDED"::equals);
        assertThat(CALLS.get(committed)).hasValue(1);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        TransactionAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Import(Counted.class)
    static class Application {}
}

package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunlaneTemplate;
import io.runlane.SingletonConflictException;
import io.runlane.TriggerOptions;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.testsupport.DatabaseGate;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * An application whose only transaction manager does not manage Runlane's {@code DataSource} (Kafka's, say, which
 * does nothing for JDBC): Runlane uses its own JDBC transaction manager, so its transactions stay transactions
 * (S-TR-10). Each test stops a Runlane statement half-way with a {@link DatabaseGate} and looks at what other
 * sessions see.
 */
@RunlaneDatabaseTest
class ForeignTransactionManagerIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("foreign_tx_it")
    private String schema;

    private ConfigurableApplicationContext context;

    @BeforeEach
    void start() {
        context = new SpringApplicationBuilder(KafkaLikeApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(Map.of(
                        "spring.datasource.url", TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size", "4",
                        "runlane.schema.name", schema,
                        "runlane.worker.enabled", "false",
                        "runlane.queues.payments.concurrency-limit", "1"))
                .run();
    }

    @AfterEach
    void stop() {
        context.close();
    }

    @Test
    @DisplayName("Finding 3: with a non-JDBC transaction manager a limited claim still holds its queue's lock while it"
            + " claims (S-QC-2)")
    void limitedClaimHoldsTheQueueLockUntilItCommits() throws Exception {
        assertThat(context.getBeansOfType(PlatformTransactionManager.class)).hasSize(1);
        RunlaneEngine engine = context.getBean(RunlaneEngine.class);
        RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);
        runlane.trigger(
                ConfirmOrder.class,
                new ConfirmOrder.Payload("o-1", 1),
                TriggerOptions.builder().queue("payments").build());

        try (DatabaseGate gate = new DatabaseGate(new JdbcTemplate(admin), schema, "runs", "BEFORE UPDATE")) {
            CompletableFuture<List<ClaimedRun>> claim = CompletableFuture.supplyAsync(() -> engine.claims()
                    .claimDueWithinLimit("w-1", "payments", 1, Set.of("orders.confirm"), 1, Duration.ofMinutes(1)));
            int claimer = gate.awaitWaiter();

            assertThat(advisoryLocksHeldBy(claimer))
                    .as("the queue's advisory lock is held while the claim statement runs")
                    .isEqualTo(1);
            gate.open();
            assertThat(claim.get(30, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    @Test
    @DisplayName("Finding 3, S-IK-1: with a non-JDBC transaction manager a run refused by a singleton holder leaves"
            + " its idempotency key free: the run row is the key's claim, so nothing needs compensating")
    void refusedRunLeavesItsKeyFree() {
        RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);
        runlane.trigger(
                ConfirmOrder.class,
                new ConfirmOrder.Payload("o-1", 1),
                TriggerOptions.builder().singletonKey("order-1").build());

        assertThatThrownBy(() -> runlane.trigger(
                        ConfirmOrder.class,
                        new ConfirmOrder.Payload("o-1", 2),
                        TriggerOptions.builder()
                                .idempotencyKey("second")
                                .singletonKey("order-1")
                                .build()))
                .isInstanceOf(SingletonConflictException.class);

        assertThat(keyRows("second")).isZero();
        assertThat(runlane.trigger(
                                ConfirmOrder.class,
                                new ConfirmOrder.Payload("o-1", 3),
                                TriggerOptions.builder()
                                        .idempotencyKey("second")
                                        .build())
                        .created())
                .isTrue();
    }

    private int advisoryLocksHeldBy(int pid) {
        Integer count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = ?",
                        Integer.class,
                        pid);
        return count == null ? 0 : count;
    }

    private int keyRows(String key) {
        Integer count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM " + schema + ".runs WHERE idempotency_key = ?", Integer.class, key);
        return count == null ? 0 : count;
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Import(ConfirmOrder.class)
    static class KafkaLikeApplication {

        @Bean
        PlatformTransactionManager kafkaTransactionManager() {
            return new NonJdbcTransactionManager();
        }
    }

    /** Does nothing for JDBC, as a Kafka or JMS transaction manager does. */
    static class NonJdbcTransactionManager extends AbstractPlatformTransactionManager {

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {}

        @Override
        protected void doCommit(DefaultTransactionStatus status) {}

        @Override
        protected void doRollback(DefaultTransactionStatus status) {}
    }
}

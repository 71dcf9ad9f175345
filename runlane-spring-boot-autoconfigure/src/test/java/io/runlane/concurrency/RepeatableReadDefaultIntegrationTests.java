package io.runlane.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.testsupport.DatabaseGate;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A database (or role) whose default isolation is {@code REPEATABLE READ}: Runlane's own transactions still run at
 * {@code READ COMMITTED} (S-TR-11), so limits, admissions and triggers in the caller's transaction keep their
 * guarantees. The default is set per connection through the JDBC URL, so the shared server's settings never change.
 */
@RunlaneDatabaseTest
class RepeatableReadDefaultIntegrationTests {

    private static final Set<String> TASKS = Set.of("orders.confirm");

    @Pool(size = 2)
    private static HikariDataSource admin;

    private static HikariDataSource repeatableRead;

    private TestRunlane runlane;

    @BeforeAll
    static void openDataSources() {
        HikariConfig config = new HikariConfig();
        String url = TestDatabase.jdbcUrl();
        config.setJdbcUrl(url + (url.contains("?") ? "&" : "?")
                + "options=-c%20default_transaction_isolation%3Drepeatable%5C%20read");
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        repeatableRead = new HikariDataSource(config);
    }

    @AfterAll
    static void closeDataSources() {
        repeatableRead.close();
    }

    @BeforeEach
    void start(@FreshSchema("repeatable_read") String schema) {
        runlane = TestRunlane.start(
                repeatableRead,
                schema,
                settings -> settings.withQueues(Set.of("default", "payments")),
                new ConfirmOrder());
        assertThat(new JdbcTemplate(repeatableRead).queryForObject("SHOW transaction_isolation", String.class))
                .as("precondition: the sessions default to REPEATABLE READ")
                .isEqualTo("repeatable read");
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    @Test
    @DisplayName("Finding 3: under a REPEATABLE READ default a claimer that waited for the queue's lock does not claim"
            + " past the limit (S-QC-2)")
    void waitingClaimerSeesTheRunsClaimedBeforeIt() throws Exception {
        for (int i = 0; i < 2; i++) {
            runlane.template()
                    .trigger(
                            ConfirmOrder.class,
                            new ConfirmOrder.Payload("o-" + i, 1),
                            TriggerOptions.builder().queue("payments").build());
        }

        try (DatabaseGate gate = new DatabaseGate(new JdbcTemplate(admin), runlane.schema(), "runs", "BEFORE UPDATE")) {
            CompletableFuture<List<ClaimedRun>> first =
                    CompletableFuture.supplyAsync(() -> claimWithinLimitOfOne("w-1"));
            gate.awaitWaiter();
            CompletableFuture<List<ClaimedRun>> second =
                    CompletableFuture.supplyAsync(() -> claimWithinLimitOfOne("w-2"));
            gate.awaitOtherWaiter("advisory");
            gate.open();

            assertThat(first.get(30, TimeUnit.SECONDS)).hasSize(1);
            assertThat(second.get(30, TimeUnit.SECONDS))
                    .as("the limit of one is taken by the claim it waited for")
                    .isEmpty();
        }
        assertThat(new JdbcTemplate(admin)
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE status = 'RUNNING'",
                                Integer.class))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("Finding 3: under a REPEATABLE READ default a duplicate trigger that waited for the first returns its"
            + " run (S-IK-7)")
    void duplicateThatWaitedReturnsTheFirstRun() throws Exception {
        TriggerOptions key = TriggerOptions.builder().idempotencyKey("order-1").build();
        // AFTER INSERT: the first run's row and its key's index entry exist, uncommitted, while it waits
        try (DatabaseGate gate = new DatabaseGate(new JdbcTemplate(admin), runlane.schema(), "runs", "AFTER INSERT")) {
            CompletableFuture<TriggerResult> first = CompletableFuture.supplyAsync(
                    () -> runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-1", 1), key));
            gate.awaitWaiter();
            CompletableFuture<TriggerResult> duplicate = CompletableFuture.supplyAsync(
                    () -> runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-1", 1), key));
            gate.awaitOtherWaiter("transactionid");
            gate.open();

            TriggerResult created = first.get(30, TimeUnit.SECONDS);
            TriggerResult returned = duplicate.get(30, TimeUnit.SECONDS);
            assertThat(created.outcome()).isEqualTo(TriggerOutcome.CREATED);
            assertThat(returned.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
            assertThat(returned.runId()).isEqualTo(created.runId());
        }
    }

    @Test
    @DisplayName("Finding 3: under a REPEATABLE READ default a trigger still joins the caller's transaction (S-TR-3)")
    void triggerJoinsTheCallersTransaction() {
        TransactionTemplate caller = new TransactionTemplate(new JdbcTransactionManager(repeatableRead));
        TriggerOptions key = TriggerOptions.builder()
                .idempotencyKey("order-2")
                .singletonKey("order-2")
                .build();

        TriggerResult rolledBack = caller.execute(status -> {
            status.setRollbackOnly();
            return runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-2", 1), key);
        });
        assertThat(runlane.template().runs().get(rolledBack.runId())).isEmpty();

        TriggerResult committed = caller.execute(
                status -> runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-2", 1), key));
        assertThat(committed.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(runlane.template().runs().get(committed.runId())).isPresent();
    }

    private List<ClaimedRun> claimWithinLimitOfOne(String worker) {
        return runlane.engine().claims().claimDueWithinLimit(worker, "payments", 1, TASKS, 1, Duration.ofMinutes(1));
    }
}

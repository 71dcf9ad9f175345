package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.step.AttemptFencedOut;
import io.runlane.internal.step.AttemptSteps;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A transactional step inside a transaction the handler opened itself on Runlane's {@code DataSource} (S-ST-15, issue
 * 25 item 11): the step joins it, and the attempt keeps its lease however long the handler keeps that transaction
 * open after the step, whether it commits or rolls back; an attempt that lost the run meanwhile commits nothing.
 */
class TransactionalStepInHandlerTransactionIntegrationTests {

    private static final Duration LEASE = Duration.ofMillis(1000);

    /** A short lease, renewed five times per lease, and maintenance that would recover an expired one at once. */
    private static final ExecutionSettings EXECUTION = ExecutionSettings.defaults()
            .withWorker(2, Duration.ofMillis(100))
            .withLease(LEASE, Duration.ofMillis(200))
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
            .withRecoveryInterval(Duration.ofMillis(100));

    static volatile String schema;

    static volatile HikariDataSource dataSource;

    static final AtomicInteger CALLS = new AtomicInteger();

    static volatile CountDownLatch entered = new CountDownLatch(1);

    static volatile CountDownLatch release = new CountDownLatch(1);

    /**
     * Opens its own transaction on Runlane's {@code DataSource}, writes an order in a transactional step inside it,
     * then keeps the transaction open until the test releases it, writes an audit row and commits or rolls back.
     */
    @Task(id = "txouter.long")
    public static class LongTransaction implements TaskHandler<LongTransaction.Payload> {

        public record Payload(boolean rollback) {}

        @Override
        public void run(Payload payload, RunContext context) {
            handlerTransaction().executeWithoutResult(status -> {
                step(() -> context.transactionalStep("order", step -> {
                    CALLS.incrementAndGet();
                    insert("orders", step.runId());
                }));
                entered.countDown();
                awaitRelease();
                insert("audit", context.runId());
                if (payload.rollback()) {
                    status.setRollbackOnly();
                }
            });
        }
    }

    private TestRunlane runlane;

    private final AtomicInteger skippedHeartbeats = new AtomicInteger();

    @BeforeEach
    void start() {
        CALLS.set(0);
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
        dataSource = TestDatabase.newDataSource(6);
        runlane = TestRunlane.withExecution(
                dataSource,
                TestDatabase.freshSchema(dataSource, "txouter"),
                UnaryOperator.identity(),
                EXECUTION,
                new EngineListener() {
                    @Override
                    public void heartbeatSent(int renewed, int skipped) {
                        skippedHeartbeats.addAndGet(skipped);
                    }
                },
                new LongTransaction());
        schema = runlane.schema();
        runlane.jdbc().execute("CREATE TABLE " + schema + ".orders (run_id uuid NOT NULL)");
        runlane.jdbc().execute("CREATE TABLE " + schema + ".audit (run_id uuid NOT NULL)");
    }

    @AfterEach
    void stop() {
        release.countDown();
        runlane.stop();
        dataSource.close();
    }

    @Test
    @DisplayName("S-ST-15, S-ST-8: a transactional step inside the handler's own transaction, kept open for several"
            + " leases after the step, keeps the attempt's lease (no heartbeat skips the run); the step and the"
            + " handler's writes commit once with it")
    void handlersTransactionOpenLongerThanTheLeaseAfterTheStepKeepsTheLease() throws Exception {
        UUID runId = runlane.template()
                .trigger("txouter.long", new LongTransaction.Payload(false))
                .runId();
        runlane.startMaintenance().startWorker();
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        OffsetDateTime stepEnded = databaseNow();

        await().atMost(Duration.ofSeconds(20))
                .until(() -> databaseNow().isAfter(stepEnded.plus(LEASE.multipliedBy(3))));
        OffsetDateTime now = databaseNow();
        OffsetDateTime leaseWhileOpen = leaseExpiresAt(runId);
        assertThat(runlane.template().runs().steps(runId))
                .as("not recorded before the handler's transaction commits")
                .isEmpty();
        release.countDown();

        Run run = await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(runId), done -> done.status().isTerminal());
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .as("the attempt kept its lease: not recovered when its transaction ended")
                .contains(RunEventType.STEP_COMPLETED)
                .doesNotContain(RunEventType.LEASE_EXPIRED);
        assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isEqualTo(1);
        assertThat(leaseWhileOpen)
                .as("the lease, three leases after the step, was still being renewed")
                .isAfter(now);
        assertThat(skippedHeartbeats).as("no heartbeat skipped the run").hasValue(0);
        assertThat(CALLS).hasValue(1);
        assertThat(rows("orders", runId)).isEqualTo(1);
        assertThat(rows("audit", runId)).isEqualTo(1);
        assertThat(runlane.template().runs().steps(runId)).hasSize(1);
    }

    @Test
    @DisplayName("S-ST-15, S-ST-8: a transactional step inside the handler's own transaction that the handler rolls"
            + " back after keeping it open for several leases: the attempt keeps its lease, nothing is recorded or"
            + " written, and the handler's outcome counts")
    void handlersTransactionRolledBackAfterSeveralLeasesKeepsTheLease() throws Exception {
        UUID runId = runlane.template()
                .trigger("txouter.long", new LongTransaction.Payload(true))
                .runId();
        runlane.startMaintenance().startWorker();
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        OffsetDateTime stepEnded = databaseNow();

        await().atMost(Duration.ofSeconds(20))
                .until(() -> leaseExpiresAt(runId).isAfter(stepEnded.plus(LEASE.multipliedBy(3))));
        release.countDown();

        Run run = await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(runId), done -> done.status().isTerminal());
        assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isEqualTo(1);
        assertThat(rows("orders", runId)).isZero();
        assertThat(rows("audit", runId)).isZero();
        assertThat(runlane.template().runs().steps(runId)).isEmpty();
        assertThat(skippedHeartbeats).as("no heartbeat skipped the run").hasValue(0);
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .doesNotContain(RunEventType.LEASE_EXPIRED);
    }

    @Test
    @DisplayName("S-ST-15, S-ST-11: an attempt that loses the run while the handler's transaction is open after its"
            + " step is recovered without waiting for that transaction; the commit then fails fenced out and rolls"
            + " back the step's and the handler's writes")
    void attemptThatLostTheRunWhileTheHandlersTransactionWasOpenCommitsNothing() throws Exception {
        UUID runId = runlane.template()
                .trigger("txouter.long", new LongTransaction.Payload(false))
                .runId();
        ClaimedRun zombie = claimAsDeadWorker(runId);
        AttemptSteps zombieSteps = runlane.engine().durable().open(zombie, "zombie");
        ExecutorService handler = Executors.newSingleThreadExecutor();
        try {
            Future<?> zombieHandler = handler.submit(() -> {
                zombieSteps.handlerStarted();
                handlerTransaction().executeWithoutResult(status -> {
                    step(() -> zombieSteps.transactionalStep("order", step -> {
                        CALLS.incrementAndGet();
                        insert("orders", step.runId());
                    }));
                    entered.countDown();
                    awaitRelease();
                    insert("audit", runId);
                });
            });
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);
            assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.RETRYING);
            release.countDown();

            assertThatThrownBy(() -> zombieHandler.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(AttemptFencedOut.class);
            assertThat(zombieSteps.fencedOut()).isTrue();
            assertThat(CALLS).as("the zombie's step ran").hasValue(1);
            assertThat(rows("orders", runId)).as("and its row was rolled back").isZero();
            assertThat(rows("audit", runId)).as("with the handler's").isZero();
            assertThat(runlane.template().runs().steps(runId)).isEmpty();
        } finally {
            release.countDown();
            handler.shutdownNow();
        }
    }

    /** A transaction of the handler's own on Runlane's {@code DataSource}, as an application's would be. */
    static TransactionTemplate handlerTransaction() {
        return new TransactionTemplate(new JdbcTransactionManager(dataSource));
    }

    /** A call of a step, which may throw checked exceptions. */
    interface StepCall {
        void run() throws Exception;
    }

    /** Runs a step inside a transaction callback, which cannot throw checked exceptions. */
    static void step(StepCall call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    static void insert(String table, UUID runId) {
        new JdbcTemplate(dataSource).update("INSERT INTO " + schema + "." + table + " (run_id) VALUES (?)", runId);
    }

    static void awaitRelease() {
        try {
            assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** Claims a run the way a worker would and then never heartbeats: a frozen worker. */
    private ClaimedRun claimAsDeadWorker(UUID runId) {
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("dead-worker", List.of("default"), List.of("txouter.long"), 1, Duration.ofMillis(300));
        assertThat(claimed)
                .singleElement()
                .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));
        return claimed.get(0);
    }

    private OffsetDateTime leaseExpiresAt(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at FROM " + schema + ".runs WHERE id = ?", OffsetDateTime.class, runId);
    }

    private OffsetDateTime databaseNow() {
        return runlane.jdbc().queryForObject("SELECT statement_timestamp()", OffsetDateTime.class);
    }

    private int rows(String table, UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + schema + "." + table + " WHERE run_id = ?", Integer.class, runId);
    }
}

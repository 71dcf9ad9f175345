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
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
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
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A transactional step and the run's lease (S-ST-15, S-EX-16): the step's lock on the run's row never holds back the
 * worker's heartbeat, and the step's record statement is the fence against an attempt that lost the run meanwhile.
 */
@RunlaneDatabaseTest
class TransactionalStepLeaseIntegrationTests {

    private static final Duration LEASE = Duration.ofMillis(1000);

    /** A short lease, renewed five times per lease, and maintenance that would recover an expired one at once. */
    private static final ExecutionSettings EXECUTION = ExecutionSettings.defaults()
            .withWorker(2, Duration.ofMillis(100))
            .withLease(LEASE, Duration.ofMillis(200))
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
            .withRecoveryInterval(Duration.ofMillis(100));

    static volatile String schema;

    static final AtomicInteger CALLS = new AtomicInteger();

    static volatile CountDownLatch entered = new CountDownLatch(1);

    static volatile CountDownLatch release = new CountDownLatch(1);

    /** Writes a row in a transactional step that lasts until the test releases it. */
    @Task(id = "txlease.long")
    public static class LongStep implements TaskHandler<LongStep.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.transactionalStep("order", step -> {
                CALLS.incrementAndGet();
                insertOrder(step.runId(), step.stepId());
                entered.countDown();
                assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
            });
        }
    }

    @Pool(size = 6)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private final AtomicInteger skippedHeartbeats = new AtomicInteger();

    @BeforeEach
    void start() {
        CALLS.set(0);
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
        runlane = TestRunlane.withExecution(
                dataSource,
                TestDatabase.freshSchema(dataSource, "txlease"),
                UnaryOperator.identity(),
                EXECUTION,
                new EngineListener() {
                    @Override
                    public void heartbeatSent(int renewed, int skipped) {
                        skippedHeartbeats.addAndGet(skipped);
                    }
                },
                new LongStep());
        schema = runlane.schema();
        runlane.jdbc().execute("CREATE TABLE " + schema + ".orders (run_id uuid NOT NULL, step_id text NOT NULL)");
    }

    @AfterEach
    void stop() {
        release.countDown();
        runlane.stop();
    }

    @Test
    @DisplayName("S-ST-15, S-EX-16: a transactional step running for several leases keeps its lease (no heartbeat"
            + " skips its run), is not recovered, and commits once")
    void transactionalStepLongerThanTheLeaseKeepsItsLease() throws Exception {
        UUID runId = runlane.template()
                .trigger("txlease.long", new LongStep.Payload("l"))
                .runId();
        runlane.startMaintenance().startWorker();
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        OffsetDateTime stepStarted = databaseNow();

        await().atMost(Duration.ofSeconds(20))
                .until(() -> leaseExpiresAt(runId).isAfter(stepStarted.plus(LEASE.multipliedBy(3))));
        assertThat(runlane.run(runId))
                .as("still the first attempt, inside its step, more than two leases after the step began")
                .satisfies(run -> {
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                    assertThat(run.attempts()).isEqualTo(1);
                });
        assertThat(skippedHeartbeats).as("no heartbeat skipped the step's run").hasValue(0);
        release.countDown();

        Run run = await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(runId), done -> done.status() == RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isEqualTo(1);
        assertThat(CALLS).hasValue(1);
        assertThat(orders(runId)).isEqualTo(1);
        assertThat(runlane.template().runs().steps(runId)).hasSize(1);
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .doesNotContain(RunEventType.LEASE_EXPIRED);
    }

    @Test
    @DisplayName("S-ST-15, S-ST-11: a lease recovery does not wait for a running transactional step; the step of the"
            + " attempt that lost the run commits nothing, and the run is claimed again once the step's transaction"
            + " ended")
    void stepWhoseLeaseIsTakenOverWhileItRunsCommitsNothing() throws Exception {
        UUID runId = runlane.template()
                .trigger("txlease.long", new LongStep.Payload("z"))
                .runId();
        ClaimedRun zombie = claimAsDeadWorker(runId);
        AttemptSteps zombieSteps = runlane.engine().durable().open(zombie, "zombie");
        ExecutorService handler = Executors.newSingleThreadExecutor();
        try {
            Future<String> zombieStep = handler.submit(() -> {
                zombieSteps.handlerStarted();
                return zombieSteps.transactionalStep("order", String.class, step -> {
                    CALLS.incrementAndGet();
                    insertOrder(step.runId(), step.stepId());
                    entered.countDown();
                    assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                    return "zombie";
                });
            });
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);
            assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.RETRYING);
            await().atMost(Duration.ofSeconds(10)).until(() -> due(runId));
            assertThat(runlane.engine()
                            .claims()
                            .claimDue("other-worker", List.of("default"), List.of("txlease.long"), 1, LEASE))
                    .as("the run is not claimed again while the zombie's step transaction is open")
                    .isEmpty();
            release.countDown();

            assertThatThrownBy(() -> zombieStep.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(AttemptFencedOut.class);
            assertThat(zombieSteps.fencedOut()).isTrue();
            assertThat(CALLS).as("the zombie's step ran").hasValue(1);
            assertThat(orders(runId)).as("and its row was rolled back").isZero();
            assertThat(runlane.template().runs().steps(runId)).isEmpty();

            ClaimedRun current = claimAsDeadWorker(runId);
            assertThat(current.fencingToken()).isGreaterThan(zombie.fencingToken());
            AttemptSteps currentSteps = runlane.engine().durable().open(current, "current");
            currentSteps.handlerStarted();
            assertThat(currentSteps.transactionalStep("order", String.class, step -> {
                        insertOrder(step.runId(), step.stepId());
                        return "current";
                    }))
                    .isEqualTo("current");
            assertThat(orders(runId)).isEqualTo(1);
        } finally {
            release.countDown();
            handler.shutdownNow();
        }
    }

    /** Writes an order row on the connection of the step's transaction. */
    static void insertOrder(UUID runId, String stepId) {
        DataSource transactional = TransactionSynchronizationManager.getResourceMap().keySet().stream()
                .filter(DataSource.class::isInstance)
                .map(DataSource.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no transaction bound to a DataSource"));
        new JdbcTemplate(transactional)
                .update("INSERT INTO " + schema + ".orders (run_id, step_id) VALUES (?, ?)", runId, stepId);
    }

    /** Claims a run the way a worker would and then never heartbeats: a frozen worker. */
    private ClaimedRun claimAsDeadWorker(UUID runId) {
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("dead-worker", List.of("default"), List.of("txlease.long"), 1, Duration.ofMillis(300));
        assertThat(claimed)
                .singleElement()
                .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));
        return claimed.get(0);
    }

    private boolean due(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT run_at <= statement_timestamp() FROM " + schema + ".runs WHERE id = ?",
                        Boolean.class,
                        runId);
    }

    private OffsetDateTime leaseExpiresAt(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at FROM " + schema + ".runs WHERE id = ?", OffsetDateTime.class, runId);
    }

    private OffsetDateTime databaseNow() {
        return runlane.jdbc().queryForObject("SELECT statement_timestamp()", OffsetDateTime.class);
    }

    private int orders(UUID runId) {
        return runlane.jdbc()
                .queryForObject("SELECT count(*) FROM " + schema + ".orders WHERE run_id = ?", Integer.class, runId);
    }
}

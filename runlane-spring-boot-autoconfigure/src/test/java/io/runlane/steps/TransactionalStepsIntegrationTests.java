package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.StepContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.step.AttemptFencedOut;
import io.runlane.internal.step.AttemptSteps;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Transactional steps (S-ST-8): database effects and the step's record commit together, exactly once per run. */
@RunlaneDatabaseTest
class TransactionalStepsIntegrationTests {

    /** Calls to step functions, by "<run id>/<step>". */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** What handlers saw, by "<run id>/<what>". */
    static final Map<String, Object> SEEN = new ConcurrentHashMap<>();

    static volatile String schema;

    static int called(UUID runId, String step) {
        return CALLS.getOrDefault(runId + "/" + step, new AtomicInteger()).get();
    }

    static void count(StepContext step) {
        CALLS.computeIfAbsent(step.runId() + "/" + step.name(), key -> new AtomicInteger())
                .incrementAndGet();
    }

    /**
     * The {@code DataSource} whose transaction the calling thread is in: the step's. Handlers are shared by the
     * instances of a test, each on its own pool, so they find the pool this way.
     */
    static DataSource transactionDataSource() {
        return TransactionSynchronizationManager.getResourceMap().keySet().stream()
                .filter(DataSource.class::isInstance)
                .map(DataSource.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no transaction bound to a DataSource"));
    }

    static void insertOrder(JdbcTemplate jdbc, StepContext step) {
        jdbc.update("INSERT INTO " + schema + ".orders (run_id, step_id) VALUES (?, ?)", step.runId(), step.stepId());
    }

    /** Writes an order in a transactional step: the write fails on attempt 1, the handler after the step on 2. */
    @Task(id = "txsteps.order")
    public static class Order implements TaskHandler<Order.Payload> {

        public record Payload(String order) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            String order = context.transactionalStep("order", String.class, step -> {
                count(step);
                insertOrder(new JdbcTemplate(transactionDataSource()), step);
                if (context.attempt() == 1) {
                    throw new IllegalStateException("fails after its write");
                }
                return "order-" + payload.order() + "-" + context.attempt();
            });
            SEEN.put(context.runId() + "/order", order);
            if (context.attempt() == 2) {
                throw new IllegalStateException("fails after the step");
            }
        }
    }

    /** Writes with JdbcTemplate and JdbcClient in one transactional step, then fails. */
    @Task(id = "txsteps.joined")
    public static class Joined implements TaskHandler<Joined.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.transactionalStep("write", step -> {
                count(step);
                DataSource dataSource = transactionDataSource();
                JdbcTemplate template = new JdbcTemplate(dataSource);
                JdbcClient client = JdbcClient.create(dataSource);
                insertOrder(template, step);
                client.sql("INSERT INTO " + schema + ".orders (run_id, step_id) VALUES (?, ?)")
                        .params(step.runId(), step.stepId() + ".client")
                        .update();
                SEEN.put(step.runId() + "/active", TransactionSynchronizationManager.isActualTransactionActive());
                SEEN.put(
                        step.runId() + "/sameTransaction",
                        template.queryForObject("SELECT txid_current()", Long.class)
                                .equals(client.sql("SELECT txid_current()")
                                        .query(Long.class)
                                        .single()));
                throw new IllegalStateException("fails after both writes");
            });
        }
    }

    /** One transactional step; while {@link #FREEZE} is set, an execution freezes inside or after it. */
    @Task(id = "txsteps.crashable")
    public static class Crashable implements TaskHandler<Crashable.Payload> {

        public record Payload(int index) {}

        static volatile boolean freeze;

        static volatile CountDownLatch frozen = new CountDownLatch(0);

        static volatile CountDownLatch THAW = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            boolean freezeHere = freeze;
            context.transactionalStep("order", step -> {
                count(step);
                insertOrder(new JdbcTemplate(transactionDataSource()), step);
                if (freezeHere && payload.index() % 2 == 0) {
                    freezeUntilThawed();
                }
            });
            if (freezeHere && payload.index() % 2 == 1) {
                freezeUntilThawed();
            }
        }

        private static void freezeUntilThawed() throws InterruptedException {
            frozen.countDown();
            THAW.await();
            throw new IllegalStateException("thawed after the instance died");
        }
    }

    /** Writes, then times out: a statement timeout on attempt 1, a lock timeout on attempt 2; attempt 3 commits. */
    @Task(id = "txsteps.timeouts")
    public static class Timeouts implements TaskHandler<Timeouts.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            try {
                context.transactionalStep("order", step -> {
                    JdbcTemplate jdbc = new JdbcTemplate(transactionDataSource());
                    insertOrder(jdbc, step);
                    if (context.attempt() == 1) {
                        jdbc.execute("SET LOCAL statement_timeout = '100ms'");
                        jdbc.execute("SELECT pg_sleep(10)");
                    } else if (context.attempt() == 2) {
                        jdbc.execute("SET LOCAL lock_timeout = '100ms'");
                        jdbc.execute("LOCK TABLE " + schema + ".blocker IN ACCESS EXCLUSIVE MODE");
                    }
                });
            } catch (Exception ex) {
                SEEN.put(context.runId() + "/failure" + context.attempt(), ex);
                throw ex;
            }
        }
    }

    /** Misuses transactional steps in every way the contract forbids and records what each misuse threw. */
    @Task(id = "txsteps.misuse")
    public static class Misuse implements TaskHandler<Misuse.Payload> {

        public record Payload(String id) {}

        static final Map<String, Throwable> THROWN = new ConcurrentHashMap<>();

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            record("colon", () -> context.transactionalStep("a:b", String.class, step -> "x"));
            record("nullType", () -> context.transactionalStep("ok", null, step -> "x"));
            record("nullFunction", () -> context.transactionalStep("ok", String.class, null));
            record("nullAction", () -> context.transactionalStep("ok", null));
            record(
                    "nestedInStep",
                    () -> context.step("outer", String.class, step -> {
                        context.transactionalStep("inner", inner -> {});
                        return "x";
                    }));
            record(
                    "stepNested",
                    () -> context.transactionalStep("outer2", String.class, step -> {
                        context.step("inner2", inner -> {});
                        return "x";
                    }));
            Thread other =
                    new Thread(() -> record("otherThread", () -> context.transactionalStep("other", step -> {})));
            other.start();
            other.join();
        }

        private static void record(String misuse, org.junit.jupiter.api.function.Executable call) {
            try {
                call.execute();
            } catch (Throwable ex) {
                THROWN.put(misuse, ex);
            }
        }
    }

    /** Short leases, so that a dead instance's runs are recovered soon. */
    private static final ExecutionSettings EXECUTION = ExecutionSettings.defaults()
            .withWorker(4, Duration.ofMillis(100))
            .withLease(Duration.ofMillis(1500), Duration.ofMillis(300))
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
            .withRecoveryInterval(Duration.ofMillis(200));

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private final List<HikariDataSource> otherDataSources = new ArrayList<>();

    private final List<TestRunlane> others = new ArrayList<>();

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        runlane = TestRunlane.withExecution(
                dataSource,
                TestDatabase.freshSchema(dataSource, "txsteps"),
                UnaryOperator.identity(),
                EXECUTION,
                io.runlane.internal.kernel.EngineListener.NONE,
                new Order(),
                new Joined(),
                new Crashable(),
                new Timeouts(),
                new Misuse());
        schema = runlane.schema();
        // every test's clean-up thaws frozen handlers, so each test starts with a latch of its own
        Crashable.THAW = new CountDownLatch(1);
        runlane.jdbc().execute("CREATE TABLE " + schema + ".orders (run_id uuid NOT NULL, step_id text NOT NULL)");
    }

    @AfterEach
    void stop() {
        Crashable.THAW.countDown();
        others.forEach(TestRunlane::stop);
        runlane.stop();
        otherDataSources.forEach(HikariDataSource::close);
    }

    private Run awaitStatus(TestRunlane instance, UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> instance.run(runId), run -> run.status() == status);
    }

    private int orders(UUID runId) {
        return runlane.jdbc()
                .queryForObject("SELECT count(*) FROM " + schema + ".orders WHERE run_id = ?", Integer.class, runId);
    }

    @Test
    @DisplayName("S-ST-8: a step failing after its write leaves no row; the retry writes once; a failure after the"
            + " step does not repeat it and the recorded result is returned")
    void failuresBeforeAndAfterATransactionalStepLeaveExactlyOneRow() {
        UUID runId = runlane.template()
                .trigger("txsteps.order", new Order.Payload("o1"))
                .runId();
        runlane.startWorker();

        Run run = awaitStatus(runlane, runId, RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isEqualTo(3);
        assertThat(called(runId, "order"))
                .as("attempt 1 rolled back, attempt 2 committed")
                .isEqualTo(2);
        assertThat(orders(runId)).isEqualTo(1);
        assertThat(SEEN.get(runId + "/order"))
                .as("attempt 3 got the recorded result")
                .isEqualTo("order-o1-2");
        assertThat(runlane.template().runs().steps(runId))
                .singleElement()
                .satisfies(step -> assertThat(step.resultJson()).isEqualTo("\"order-o1-2\""));
        assertThat(runlane.template().runs().events(runId))
                .filteredOn(event -> event.type() == RunEventType.STEP_COMPLETED)
                .hasSize(1);
    }

    @Test
    @DisplayName("S-ST-8, S-TR-10: JdbcTemplate and JdbcClient inside a transactional step join its transaction and"
            + " roll back with it")
    void jdbcTemplateAndJdbcClientJoinTheStepsTransaction() {
        UUID runId = runlane.template()
                .trigger("txsteps.joined", new Joined.Payload("j"))
                .runId();
        runlane.startWorker();

        awaitStatus(runlane, runId, RunStatus.FAILED);
        assertThat(called(runId, "write")).isGreaterThanOrEqualTo(1);
        assertThat(SEEN.get(runId + "/active")).isEqualTo(true);
        assertThat(SEEN.get(runId + "/sameTransaction")).isEqualTo(true);
        assertThat(orders(runId)).isZero();
        assertThat(runlane.template().runs().steps(runId)).isEmpty();
    }

    @Test
    @DisplayName("S-ST-8, S-ST-11: a zombie attempt's transactional step (its lease taken over) runs nothing,"
            + " commits nothing and ends the attempt")
    void zombieAttemptsTransactionalStepCommitsNothing() throws Exception {
        UUID runId = runlane.template()
                .trigger("txsteps.order", new Order.Payload("z"))
                .runId();
        ClaimedRun zombie = claimAsDeadWorker(runId);
        AttemptSteps zombieSteps = runlane.engine().durable().open(zombie, "zombie");
        zombieSteps.handlerStarted();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);
        ClaimedRun current = claimAsDeadWorker(runId);
        assertThat(current.fencingToken()).isGreaterThan(zombie.fencingToken());

        assertThatThrownBy(() -> zombieSteps.transactionalStep("order", String.class, step -> {
                    count(step);
                    insertOrder(new JdbcTemplate(transactionDataSource()), step);
                    return "zombie";
                }))
                .isInstanceOf(AttemptFencedOut.class);
        assertThat(zombieSteps.fencedOut()).isTrue();
        assertThat(called(runId, "order")).isZero();
        assertThat(orders(runId)).isZero();
        assertThat(runlane.template().runs().steps(runId)).isEmpty();

        AttemptSteps currentSteps = runlane.engine().durable().open(current, "current");
        currentSteps.handlerStarted();
        assertThat(currentSteps.transactionalStep("order", String.class, step -> {
                    insertOrder(new JdbcTemplate(transactionDataSource()), step);
                    return "current";
                }))
                .isEqualTo("current");
        assertThat(orders(runId)).isEqualTo(1);
    }

    @Test
    @DisplayName("S-ST-8: a recorded transactional step returns its result without opening a transaction: it does"
            + " not wait for the run's row lock")
    void memoizedTransactionalStepOpensNoTransaction() throws Exception {
        UUID runId = runlane.template()
                .trigger("txsteps.order", new Order.Payload("m"))
                .runId();
        ClaimedRun first = claimAsDeadWorker(runId);
        AttemptSteps firstSteps = runlane.engine().durable().open(first, "first");
        firstSteps.handlerStarted();
        assertThat(firstSteps.transactionalStep("order", String.class, step -> "recorded"))
                .isEqualTo("recorded");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);
        ClaimedRun second = claimAsDeadWorker(runId);
        AttemptSteps secondSteps = runlane.engine().durable().open(second, "second");

        ExecutorService handler = Executors.newSingleThreadExecutor();
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            try (var statement =
                    locker.prepareStatement("SELECT id FROM " + schema + ".runs WHERE id = ? FOR UPDATE")) {
                statement.setObject(1, runId);
                statement.executeQuery().close();
            }
            Future<String> replay = handler.submit(() -> {
                secondSteps.handlerStarted();
                return secondSteps.transactionalStep("order", String.class, step -> {
                    count(step);
                    return "again";
                });
            });
            await().atMost(Duration.ofSeconds(10)).until(replay::isDone);
            assertThat(replay.get()).isEqualTo("recorded");
            locker.rollback();
        } finally {
            handler.shutdownNow();
        }
        assertThat(called(runId, "order")).isZero();
    }

    @Test
    @DisplayName("S-ST-8: a statement timeout and a lock timeout inside a transactional step are ordinary step"
            + " failures: rolled back and retried, one row in the end")
    void timeoutsInsideATransactionalStepAreOrdinaryFailures() throws Exception {
        runlane.jdbc().execute("CREATE TABLE " + schema + ".blocker (id int)");
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            try (var statement = locker.createStatement()) {
                statement.execute("LOCK TABLE " + schema + ".blocker IN ACCESS EXCLUSIVE MODE");
            }
            UUID runId = runlane.template()
                    .trigger("txsteps.timeouts", new Timeouts.Payload("t"))
                    .runId();
            runlane.startWorker();

            Run run = awaitStatus(runlane, runId, RunStatus.SUCCEEDED);
            locker.rollback();
            assertThat(run.attempts()).isEqualTo(3);
            assertThat(SEEN.get(runId + "/failure1")).isInstanceOf(DataAccessException.class);
            assertThat(SEEN.get(runId + "/failure2")).isInstanceOf(DataAccessException.class);
            assertThat(orders(runId)).isEqualTo(1);
            assertThat(runlane.template().runs().steps(runId)).hasSize(1);
        }
    }

    @Test
    @DisplayName("S-ST-5, S-ID-1: invalid names, null type or function, nested steps and another thread are refused"
            + " and record nothing")
    void misusedTransactionalStepsAreRefused() {
        UUID runId = runlane.template()
                .trigger("txsteps.misuse", new Misuse.Payload("m"))
                .runId();
        runlane.startWorker();
        awaitStatus(runlane, runId, RunStatus.SUCCEEDED);

        assertThat(Misuse.THROWN.get("colon"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("name");
        assertThat(Misuse.THROWN.get("nullType")).isInstanceOf(NullPointerException.class);
        assertThat(Misuse.THROWN.get("nullFunction")).isInstanceOf(NullPointerException.class);
        assertThat(Misuse.THROWN.get("nullAction")).isInstanceOf(NullPointerException.class);
        assertThat(Misuse.THROWN.get("nestedInStep")).isInstanceOf(IllegalStateException.class);
        assertThat(Misuse.THROWN.get("stepNested")).isInstanceOf(IllegalStateException.class);
        assertThat(Misuse.THROWN.get("otherThread"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("thread");
        assertThat(runlane.template().runs().steps(runId)).isEmpty();
    }

    @Test
    @DisplayName("S-ST-8: 32 runs with a transactional step each, one instance dying mid-way (its connections"
            + " aborted inside and after steps): every run's row exists exactly once")
    void instanceDyingMidWayLeavesEveryRowExactlyOnce() {
        HikariDataSource dying = TestDatabase.newDataSource(8);
        otherDataSources.add(dying);
        TestRunlane doomed = TestRunlane.withExecution(
                dying,
                schema,
                UnaryOperator.identity(),
                EXECUTION.withShutdownTimeout(Duration.ofSeconds(1)),
                io.runlane.internal.kernel.EngineListener.NONE,
                new Crashable());
        others.add(doomed);
        List<UUID> runIds = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            runIds.add(runlane.template()
                    .trigger("txsteps.crashable", new Crashable.Payload(i))
                    .runId());
        }
        Crashable.frozen = new CountDownLatch(4);
        Crashable.freeze = true;
        doomed.startWorker();
        await().atMost(Duration.ofSeconds(20)).until(() -> Crashable.frozen.getCount() == 0);
        Crashable.freeze = false;
        dying.close();

        runlane.startMaintenance().startWorker();
        runIds.forEach(runId -> awaitStatus(runlane, runId, RunStatus.SUCCEEDED));
        Crashable.THAW.countDown();

        for (UUID runId : runIds) {
            assertThat(orders(runId)).as("orders of %s", runId).isEqualTo(1);
            assertThat(runlane.template().runs().steps(runId))
                    .extracting(RunStep::name)
                    .containsExactly("order");
        }
        assertThat(runIds)
                .as("some runs were recovered from the dead instance")
                .anyMatch(runId -> runlane.run(runId).attempts() > 1);
    }

    /** Claims a run the way a worker would and then never heartbeats: a frozen or killed worker. */
    private ClaimedRun claimAsDeadWorker(UUID runId) {
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("dead-worker", List.of("default"), List.of("txsteps.order"), 1, Duration.ofMillis(300));
        assertThat(claimed)
                .singleElement()
                .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));
        return claimed.get(0);
    }
}

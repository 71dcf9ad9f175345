package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.actuate.RunlaneHealthIndicator;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The worker under faults: a claim that fails after another claim of the same poll committed, a stop while a claim
 * waits, a run's row locked by another transaction, a slow heartbeat and an error thrown inside a heartbeat
 * (S-EX-2, S-EX-11, S-EX-16, S-EX-17, S-MO-4).
 */
@RunlaneDatabaseTest
class WorkerFaultIntegrationTests {

    private static final String PAYMENTS = "payments";

    private static final Duration LEASE = Duration.ofMillis(1500);

    /** Handler executions by run id. */
    static final Map<UUID, AtomicInteger> EXECUTIONS = new ConcurrentHashMap<>();

    /** Latches holding {@link Held} handlers, by key. */
    static final Map<String, CountDownLatch> HOLDS = new ConcurrentHashMap<>();

    /** Keys of held handlers that were ever told to stop. */
    static final Set<String> TOLD_TO_STOP = ConcurrentHashMap.newKeySet();

    /** Attempt results as the worker reported them. */
    static final List<String> RESULTS = new CopyOnWriteArrayList<>();

    @Task(id = "faults.quick", maxAttempts = 1)
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
        }
    }

    @Task(id = "faults.payment", queue = PAYMENTS, maxAttempts = 1)
    public static class Payment implements TaskHandler<Payment.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
        }
    }

    /** Runs until the test releases its key, remembering whether it was ever told to stop. */
    @Task(id = "faults.held")
    public static class Held implements TaskHandler<Held.Payload> {

        public record Payload(String key) {}

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
            CountDownLatch hold = HOLDS.computeIfAbsent(payload.key(), key -> new CountDownLatch(1));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!hold.await(20, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
                if (context.isCancellationRequested()) {
                    TOLD_TO_STOP.add(payload.key());
                }
            }
            if (context.isCancellationRequested()) {
                TOLD_TO_STOP.add(payload.key());
            }
        }
    }

    /** What the current test's engine listener does on a heartbeat; replaced per test. */
    private volatile @Nullable HeartbeatHook heartbeatHook;

    interface HeartbeatHook {

        void heartbeatSent(int renewed, int skipped);
    }

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private @Nullable Connection blocker;

    @BeforeEach
    void start(@FreshSchema("faults") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                // claims here wait on purpose for a queue lock another session holds longer than the default
                // network timeout of the engine's loops (S-MO-11)
                settings -> settings.withQueues(Set.of("default", PAYMENTS)).withNetworkTimeout(Duration.ofMinutes(1)),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(LEASE, Duration.ofMillis(300))
                        .withConcurrencyLimits(Map.of(PAYMENTS, 1))
                        .withRecoveryInterval(Duration.ofMillis(200)),
                new EngineListener() {
                    @Override
                    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
                        RESULTS.add(claimed.run().id() + ":" + result);
                    }

                    @Override
                    public void heartbeatSent(int renewed, int skipped) {
                        HeartbeatHook hook = heartbeatHook;
                        if (hook != null) {
                            hook.heartbeatSent(renewed, skipped);
                        }
                    }
                },
                new Quick(),
                new Payment(),
                new Held());
    }

    @AfterEach
    void stop() throws SQLException {
        HOLDS.values().forEach(CountDownLatch::countDown);
        if (blocker != null) {
            blocker.close();
        }
        runlane.stop();
        runlane.engine().close();
    }

    @Test
    @DisplayName("Finding 4 (S-EX-17): runs claimed before another claim of the same poll fails still execute")
    void runsClaimedBeforeAFailingClaimStillExecute() throws SQLException {
        blocker = dataSource.getConnection();
        String queueLock = queueLockKey(PAYMENTS);
        advisoryLock(blocker, queueLock);
        UUID payment = trigger("faults.payment", new Payment.Payload("p"));
        UUID quick = trigger("faults.quick", new Quick.Payload("q"));
        runlane.startWorker().startMaintenance();

        int poller = await().atMost(Duration.ofSeconds(10)).until(() -> waiterOf(queueLock), pid -> pid != null);
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(quick).status() != RunStatus.QUEUED);
        // The claim of the limited queue fails after the claim of the unlimited one committed.
        runlane.jdbc().queryForObject("SELECT pg_cancel_backend(?)", Boolean.class, poller);

        Run finished = await().atMost(Duration.ofSeconds(15))
                .until(() -> runlane.run(quick), run -> run.status().isTerminal());
        assertThat(finished.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(finished.attempts()).isOne();
        assertThat(EXECUTIONS.get(quick)).hasValue(1);

        advisoryUnlock(blocker, queueLock);
        assertThat(await().atMost(Duration.ofSeconds(15))
                        .until(() -> runlane.run(payment), run -> run.status().isTerminal())
                        .status())
                .isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName("Finding 4 (S-EX-17): a run claimed while the worker stops is handed back without spending budget")
    void runClaimedWhileStoppingIsHandedBack() throws Exception {
        blocker = dataSource.getConnection();
        String queueLock = queueLockKey(PAYMENTS);
        advisoryLock(blocker, queueLock);
        UUID payment = trigger("faults.payment", new Payment.Payload("p"));
        UUID quick = trigger("faults.quick", new Quick.Payload("q"));
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiterOf(queueLock), pid -> pid != null);
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(quick).status() != RunStatus.QUEUED);

        // Stopping gives up waiting for the poller, which is still waiting for the queue's lock.
        Thread stopping = new Thread(runlane.engine().worker()::stop);
        stopping.start();
        stopping.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(stopping.isAlive()).isFalse();
        advisoryUnlock(blocker, queueLock);

        Run handedBack = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(payment), run -> run.status() == RunStatus.QUEUED && hasHandedBack(run));
        assertThat(handedBack.attempts()).as("the claim spent no attempt").isZero();
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT lease_owner FROM " + runlane.schema() + ".runs WHERE id = ?",
                                String.class,
                                payment))
                .isNull();
        assertThat(EXECUTIONS).doesNotContainKey(payment);
        assertThat(runlane.template().runs().attempts(payment)).isEmpty();
        Run quickRun = runlane.run(quick);
        assertThat(quickRun.status() == RunStatus.SUCCEEDED
                        || (quickRun.status() == RunStatus.QUEUED && quickRun.attempts() == 0))
                .as("the other claimed run either ran or was handed back: %s", quickRun)
                .isTrue();

        runlane.startWorker();
        Run succeeded = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(payment), run -> run.status().isTerminal());
        assertThat(succeeded.status())
                .as("a run with one attempt still has it after being handed back")
                .isEqualTo(RunStatus.SUCCEEDED);
        assertThat(succeeded.attempts()).isOne();
        assertThat(EXECUTIONS.get(payment)).hasValue(1);
    }

    @Test
    @DisplayName("Finding 7 (S-EX-16): one locked row never stalls the other leases, and is not lost")
    void oneLockedRowNeverStallsTheOtherLeases() throws Exception {
        String lockedKey = "locked-" + UUID.randomUUID();
        String freeKey = "free-" + UUID.randomUUID();
        UUID locked = trigger("faults.held", new Held.Payload(lockedKey));
        UUID free = trigger("faults.held", new Held.Payload(freeKey));
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(locked).status() == RunStatus.RUNNING
                        && runlane.run(free).status() == RunStatus.RUNNING);

        blocker = dataSource.getConnection();
        blocker.setAutoCommit(false);
        try (PreparedStatement lock =
                blocker.prepareStatement("SELECT id FROM " + runlane.schema() + ".runs WHERE id = ? FOR UPDATE")) {
            lock.setObject(1, locked);
            lock.executeQuery().close();
        }
        OffsetDateTime lockedAt = databaseNow();
        OffsetDateTime freeLeaseWhenLocked = leaseExpiry(free);

        // The row stays locked for two leases; meanwhile the other lease never runs out.
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    assertThat(leaseExpiry(free)).as("the free run's lease").isAfter(databaseNow());
                    return databaseNow().isAfter(lockedAt.plus(LEASE.multipliedBy(2)));
                });
        assertThat(leaseExpiry(free)).isAfter(freeLeaseWhenLocked.plus(LEASE));
        blocker.rollback();

        // The skipped lease is renewed by the next heartbeat.
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseExpiry(locked).isAfter(databaseNow()));
        assertThat(runlane.engine().leaseRescuer().rescueExpired()).isZero();
        HOLDS.computeIfAbsent(lockedKey, key -> new CountDownLatch(1)).countDown();
        HOLDS.computeIfAbsent(freeKey, key -> new CountDownLatch(1)).countDown();
        for (UUID runId : List.of(locked, free)) {
            Run run = await().atMost(Duration.ofSeconds(10))
                    .until(
                            () -> runlane.run(runId),
                            candidate -> candidate.status().isTerminal());
            assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(run.attempts()).isOne();
            assertThat(EXECUTIONS.get(runId)).hasValue(1);
        }
        assertThat(TOLD_TO_STOP).as("handlers told to stop").doesNotContain(lockedKey, freeKey);
    }

    @Test
    @DisplayName("Finding 12 (S-EX-11): an attempt claimed while a heartbeat is under way is not marked lost")
    void attemptClaimedDuringAHeartbeatIsNotMarkedLost() throws Exception {
        String gate = "gate:" + runlane.schema();
        runlane.jdbc().execute("""
                CREATE FUNCTION %1$s.gate_heartbeats() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF OLD.status = NEW.status AND OLD.lease_expires_at IS DISTINCT FROM NEW.lease_expires_at THEN
                        PERFORM pg_advisory_xact_lock_shared(hashtextextended('%2$s', 0));
                    END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER gate_heartbeats BEFORE UPDATE ON %1$s.runs
                    FOR EACH ROW EXECUTE FUNCTION %1$s.gate_heartbeats();
                """.formatted(runlane.schema(), gate));
        String firstKey = "first-" + UUID.randomUUID();
        String secondKey = "second-" + UUID.randomUUID();
        UUID first = trigger("faults.held", new Held.Payload(firstKey));
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(first).status() == RunStatus.RUNNING);

        // The next heartbeat's renewal waits at the gate while a second attempt is claimed.
        blocker = dataSource.getConnection();
        advisoryLock(blocker, gate);
        await().atMost(Duration.ofSeconds(10)).until(() -> waiterOf(gate), pid -> pid != null);
        UUID second = trigger("faults.held", new Held.Payload(secondKey));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(second).status() == RunStatus.RUNNING
                        && runlane.engine().worker().inFlight() == 2);
        advisoryUnlock(blocker, gate);

        // Let a few more heartbeats judge both attempts.
        OffsetDateTime released = databaseNow();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> leaseExpiry(second).isAfter(released.plus(LEASE))
                        && leaseExpiry(first).isAfter(released.plus(LEASE)));
        HOLDS.computeIfAbsent(firstKey, key -> new CountDownLatch(1)).countDown();
        HOLDS.computeIfAbsent(secondKey, key -> new CountDownLatch(1)).countDown();
        for (UUID runId : List.of(first, second)) {
            assertThat(await().atMost(Duration.ofSeconds(10))
                            .until(() -> runlane.run(runId), run -> run.status().isTerminal())
                            .status())
                    .isEqualTo(RunStatus.SUCCEEDED);
        }
        assertThat(TOLD_TO_STOP).as("handlers told to stop").doesNotContain(firstKey, secondKey);
        assertThat(RESULTS).doesNotContain(first + ":lease_lost", second + ":lease_lost");
    }

    @Test
    @DisplayName("Finding 9 (S-MO-4): an error thrown inside a heartbeat does not stop later heartbeats")
    void anErrorInsideAHeartbeatDoesNotStopLaterHeartbeats() {
        AtomicBoolean thrown = new AtomicBoolean();
        AtomicInteger beatsAfterTheError = new AtomicInteger();
        heartbeatHook = (renewed, skipped) -> {
            if (thrown.compareAndSet(false, true)) {
                throw new HeartbeatTestError();
            }
            beatsAfterTheError.incrementAndGet();
        };
        String key = "beating-" + UUID.randomUUID();
        UUID runId = trigger("faults.held", new Held.Payload(key));
        runlane.startWorker();

        await().atMost(Duration.ofSeconds(10)).until(thrown::get);
        OffsetDateTime afterTheError = databaseNow();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> beatsAfterTheError.get() >= 3 && leaseExpiry(runId).isAfter(afterTheError.plus(LEASE)));
        assertThat(runlane.engine().worker().deadThreads()).isEmpty();
        HOLDS.computeIfAbsent(key, ignored -> new CountDownLatch(1)).countDown();
        assertThat(await().atMost(Duration.ofSeconds(10))
                        .until(() -> runlane.run(runId), run -> run.status().isTerminal())
                        .status())
                .isEqualTo(RunStatus.SUCCEEDED);
        assertThat(EXECUTIONS.get(runId)).hasValue(1);
    }

    @Test
    @DisplayName("Finding 9 (S-MO-4): a dead completion writer turns health DOWN, is restarted, and its runs complete")
    void deadCompletionWriterIsReportedAndRestarted() {
        // Heartbeats, which supervise the threads, are rare here, so the dead writer stays dead long enough to see.
        TestRunlane rare = TestRunlane.withExecution(
                dataSource,
                runlane.schema(),
                settings -> settings.withQueues(Set.of("default", PAYMENTS)),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(Duration.ofSeconds(30), Duration.ofSeconds(5)),
                EngineListener.NONE,
                new Quick(),
                new Payment(),
                new Held());
        try {
            Set<Thread> before = completionWriters();
            rare.startWorker();
            Thread writer = await().atMost(Duration.ofSeconds(10))
                    .until(
                            () -> completionWriters().stream()
                                    .filter(thread -> !before.contains(thread))
                                    .toList(),
                            started -> started.size() == 1)
                    .get(0);
            writer.interrupt();
            await().atMost(Duration.ofSeconds(10)).until(() -> !writer.isAlive());

            RunWorker worker = rare.engine().worker();
            assertThat(worker.deadThreads()).containsExactly("completion writer");
            Health down = health(rare);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails().get("problems").toString()).contains("completion writer");

            UUID runId = rare.template()
                    .trigger("faults.quick", new Quick.Payload("after"))
                    .runId();
            Run run = await().atMost(Duration.ofSeconds(20))
                    .until(
                            () -> rare.run(runId),
                            candidate -> candidate.status().isTerminal());
            assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(worker.deadThreads()).isEmpty();
            assertThat(health(rare).getStatus()).isEqualTo(Status.UP);
        } finally {
            rare.stop();
            rare.engine().close();
        }
    }

    private static Health health(TestRunlane instance) {
        return new RunlaneHealthIndicator(
                        instance.engine().statistics(),
                        List.copyOf(instance.engine().settings().queues()),
                        instance.engine().worker(),
                        null,
                        null,
                        Duration.ofMinutes(1),
                        () -> true)
                .health();
    }

    private static Set<Thread> completionWriters() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("runlane-completions-"))
                .collect(Collectors.toSet());
    }

    /** An error no heartbeat expects. */
    static final class HeartbeatTestError extends Error {

        HeartbeatTestError() {
            super("thrown by the test inside a heartbeat");
        }
    }

    private UUID trigger(String taskId, Object payload) {
        return runlane.template().trigger(taskId, payload).runId();
    }

    private boolean hasHandedBack(Run run) {
        return runlane.template().runs().events(run.id()).stream()
                .map(RunEvent::type)
                .toList()
                .equals(List.of(RunEventType.CREATED, RunEventType.CLAIMED, RunEventType.HANDED_BACK));
    }

    /** The key of the advisory lock under which the worker claims a limited queue. */
    private String queueLockKey(String queue) {
        return "runlane:" + runlane.schema() + ":" + runlane.engine().settings().environment() + ":" + queue;
    }

    private static void advisoryLock(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT pg_advisory_lock(hashtextextended(?, 0))")) {
            statement.setString(1, key);
            statement.executeQuery().close();
        }
    }

    private static void advisoryUnlock(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT pg_advisory_unlock(hashtextextended(?, 0))")) {
            statement.setString(1, key);
            statement.executeQuery().close();
        }
    }

    /** The backend waiting for the advisory lock of this key, if one is. */
    private @Nullable Integer waiterOf(String key) {
        List<Integer> waiting = runlane.jdbc()
                .queryForList(
                        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                                + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)",
                        Integer.class,
                        key);
        return waiting.isEmpty() ? null : waiting.get(0);
    }

    private OffsetDateTime leaseExpiry(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at FROM " + runlane.schema() + ".runs WHERE id = ?",
                        OffsetDateTime.class,
                        runId);
    }

    private OffsetDateTime databaseNow() {
        return runlane.jdbc().queryForObject("SELECT now()", OffsetDateTime.class);
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-EX-36: a due run triggered outside a transaction while the local worker has a free slot for it is stored already
 * claimed by that worker and starts after that one commit; every other run waits for the worker's claim. Such a
 * start is the claim: its {@code CLAIMED} event carries the run's creation time, which no later claim statement can.
 */
@RunlaneDatabaseTest
class StartOnTriggerIntegrationTests {

    private static final String LIMITED = "limited";

    @Task(id = "start.quick")
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(int index) {}

        static final Map<UUID, AtomicInteger> EXECUTIONS = new ConcurrentHashMap<>();

        static final AtomicInteger RUNNING = new AtomicInteger();

        static final AtomicInteger MOST_AT_ONCE = new AtomicInteger();

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            int now = RUNNING.incrementAndGet();
            MOST_AT_ONCE.accumulateAndGet(now, Math::max);
            try {
                EXECUTIONS
                        .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                        .incrementAndGet();
                if (payload.index() % 7 == 0) {
                    Thread.sleep(2);
                }
            } finally {
                RUNNING.decrementAndGet();
            }
        }
    }

    /** Holds its slot until the test lets it go. */
    @Task(id = "start.blocking")
    public static class Blocking implements TaskHandler<Blocking.Payload> {

        public record Payload(int index) {}

        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            release.await(60, TimeUnit.SECONDS);
        }
    }

    @Task(id = "start.limited", queue = LIMITED)
    public static class Limited implements TaskHandler<Limited.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 16)
    private HikariDataSource dataSource;

    @FreshSchema("starts")
    private String schema;

    private TestRunlane runlane;

    @BeforeEach
    void reset() {
        Quick.EXECUTIONS.clear();
        Quick.MOST_AT_ONCE.set(0);
        Blocking.release = new CountDownLatch(1);
    }

    @AfterEach
    void stop() {
        Blocking.release.countDown();
        if (runlane != null) {
            runlane.stop();
        }
    }

    private TestRunlane runlane(int concurrency, boolean startOnTrigger) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        settings -> settings.withQueues(Set.of(LIMITED)),
                        ExecutionSettings.defaults()
                                .withWorker(concurrency, Duration.ofMillis(200))
                                .withConcurrencyLimits(Map.of(LIMITED, 4))
                                .toBuilder()
                                .startOnTrigger(startOnTrigger)
                                .build(),
                        EngineListener.NONE,
                        new Quick(),
                        new Blocking(),
                        new Limited())
                .startWorker();
        return runlane;
    }

    @Test
    @DisplayName("S-EX-36, S-TR-1: a run triggered with a free slot starts on its trigger's commit, and the trigger"
            + " answers CREATED with the run as created")
    void startsOnTheTriggersCommit() {
        runlane(2, true);

        TriggerResult result = runlane.template().trigger("start.quick", new Quick.Payload(1));

        assertThat(result.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(result.run().status()).isEqualTo(RunStatus.QUEUED);
        assertThat(result.run().attempts()).isZero();
        assertThat(result.run().spentAttempts()).isZero();
        assertThat(result.run().updatedAt()).isEqualTo(result.run().createdAt());
        Run done = awaitSucceeded(result.runId());
        assertThat(result.run().createdAt()).isEqualTo(done.createdAt());
        assertThat(result.run().runAt()).isEqualTo(done.runAt()).isEqualTo(done.createdAt());
        assertThat(done.attempts()).isOne();
        assertThat(Quick.EXECUTIONS.get(result.runId())).hasValue(1);
        assertThat(startedOnTrigger(result.runId())).isTrue();
        RunEvent claimed = claimedEvent(result.runId());
        assertThat(claimed.sequence()).isEqualTo(2);
        assertThat(claimed.actor()).isEqualTo(runlane.engine().worker().workerId());
        assertThat(claimed.detail()).isEqualTo("attempt 1");
    }

    @Test
    @DisplayName("S-EX-36: with runlane.worker.start-on-trigger off, the run waits for the worker's claim")
    void startOnTriggerCanBeTurnedOff() {
        runlane(2, false);

        UUID runId =
                runlane.template().trigger("start.quick", new Quick.Payload(1)).runId();

        awaitSucceeded(runId);
        assertThat(startedOnTrigger(runId)).isFalse();
    }

    @Test
    @DisplayName("S-EX-36: runs of a queue with a concurrency limit and runs due later are claimed by the worker")
    void otherRunsWaitForTheClaim() {
        runlane(4, true);
        UUID limited = runlane.template()
                .trigger("start.limited", new Limited.Payload(1))
                .runId();
        UUID delayed = runlane.template()
                .trigger(
                        "start.quick",
                        new Quick.Payload(2),
                        TriggerOptions.builder().delay(Duration.ofMillis(1)).build())
                .runId();

        List.of(limited, delayed).forEach(runId -> {
            awaitSucceeded(runId);
            assertThat(startedOnTrigger(runId)).as("run %s", runId).isFalse();
        });
    }

    @Test
    @DisplayName("S-EX-36, S-TR-3: a run triggered in a caller's transaction is stored claimed and starts only after"
            + " that transaction commits")
    void startsAfterTheCallersCommit() {
        runlane(1, true);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));

        UUID runId = transaction.execute(status -> {
            UUID id = runlane.template()
                    .trigger("start.quick", new Quick.Payload(1))
                    .runId();
            assertThat(Quick.EXECUTIONS).as("nothing starts before the commit").doesNotContainKey(id);
            return id;
        });

        awaitSucceeded(runId);
        assertThat(startedOnTrigger(runId)).isTrue();
        assertThat(Quick.EXECUTIONS.get(runId)).hasValue(1);
    }

    @Test
    @DisplayName("S-EX-36: a caller's rollback, also to a savepoint, removes the run, starts nothing and frees the"
            + " slot")
    void rolledBackTriggersStartNothing() {
        runlane(1, true);
        DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
        TransactionTemplate transaction = new TransactionTemplate(manager);
        TransactionTemplate nested = new TransactionTemplate(manager);
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);

        UUID rolledBack = transaction.execute(status -> {
            status.setRollbackOnly();
            return runlane.template()
                    .trigger("start.quick", new Quick.Payload(1))
                    .runId();
        });
        UUID toSavepoint = transaction.execute(status -> nested.execute(inner -> {
            inner.setRollbackOnly();
            return runlane.template()
                    .trigger("start.quick", new Quick.Payload(2))
                    .runId();
        }));

        assertThat(runlane.template().runs().get(rolledBack)).isEmpty();
        assertThat(runlane.template().runs().get(toSavepoint)).isEmpty();
        // the one slot is free again: only a start on the trigger's commit can take the next run while the poller
        // sleeps, and a run held by a lost claim would never run
        UUID next =
                runlane.template().trigger("start.quick", new Quick.Payload(3)).runId();
        awaitSucceeded(next);
        assertThat(Quick.EXECUTIONS).containsOnlyKeys(next);
    }

    @Test
    @DisplayName("S-EX-36: with every slot busy the run is stored QUEUED and a slot's claim takes it later")
    void busySlotsLeaveTheRunQueued() {
        runlane(1, true);
        UUID blocking = runlane.template()
                .trigger("start.blocking", new Blocking.Payload(0))
                .runId();
        awaitStatus(blocking, RunStatus.RUNNING);

        UUID queued =
                runlane.template().trigger("start.quick", new Quick.Payload(1)).runId();

        assertThat(runlane.run(queued).status()).isEqualTo(RunStatus.QUEUED);
        Blocking.release.countDown();
        awaitSucceeded(queued);
        assertThat(startedOnTrigger(blocking)).isTrue();
        assertThat(startedOnTrigger(queued)).isFalse();
    }

    @Test
    @DisplayName("S-EX-36, S-PR-2: a due waiting run of the queue with at least the new run's priority goes first;"
            + " one of a lower priority does not hold the new run back")
    void aWaitingRunOfTheQueueGoesFirst() {
        runlane(2, true);
        // runs of a task this instance does not run: its claims never take them, so they keep waiting
        insertWaitingRunOfAnotherTask(0);

        UUID behind =
                runlane.template().trigger("start.quick", new Quick.Payload(1)).runId();
        awaitSucceeded(behind);
        assertThat(startedOnTrigger(behind)).isFalse();

        UUID urgent = runlane.template()
                .trigger(
                        "start.quick",
                        new Quick.Payload(2),
                        TriggerOptions.builder().priority(5).build())
                .runId();
        awaitSucceeded(urgent);
        assertThat(startedOnTrigger(urgent)).isTrue();
    }

    @Test
    @DisplayName("S-EX-36, S-SK-2, S-IK-2: a trigger refused by a singleton holder or answered by its key's owner"
            + " frees the slot it reserved")
    void refusedTriggersFreeTheirSlot() {
        runlane(2, true);
        UUID holder = runlane.template()
                .trigger(
                        "start.blocking",
                        new Blocking.Payload(0),
                        TriggerOptions.builder().singletonKey("k").build())
                .runId();
        awaitStatus(holder, RunStatus.RUNNING);
        UUID owner = runlane.template()
                .trigger(
                        "start.quick",
                        new Quick.Payload(1),
                        TriggerOptions.builder().idempotencyKey("d").build())
                .runId();
        awaitSucceeded(owner);

        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> runlane.template()
                            .trigger(
                                    "start.blocking",
                                    new Blocking.Payload(1),
                                    TriggerOptions.builder().singletonKey("k").build()))
                    .isInstanceOf(SingletonConflictException.class);
            TriggerResult duplicate = runlane.template()
                    .trigger(
                            "start.quick",
                            new Quick.Payload(1),
                            TriggerOptions.builder().idempotencyKey("d").build());
            assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
            assertThat(duplicate.runId()).isEqualTo(owner);
        }

        // one slot is left, and only the trigger's start can use it while the poller sleeps between its polls
        UUID last =
                runlane.template().trigger("start.quick", new Quick.Payload(2)).runId();
        awaitSucceeded(last);
        assertThat(startedOnTrigger(last)).isTrue();
        assertThat(Quick.EXECUTIONS.get(owner)).hasValue(1);
    }

    @Test
    @DisplayName("S-EX-36: a stopped worker offers no slot")
    void aStoppedWorkerOffersNoSlot() {
        runlane(2, true);
        runlane.engine().worker().stop();

        UUID runId =
                runlane.template().trigger("start.quick", new Quick.Payload(1)).runId();

        Run stored = runlane.run(runId);
        assertThat(stored.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(stored.attempts()).isZero();
    }

    @Test
    @DisplayName("S-EX-36, S-EX-1: triggers from many threads start each run once, never more at once than the"
            + " worker's slots")
    void concurrentTriggersStartEachRunOnce() {
        int concurrency = 3;
        runlane(concurrency, true);
        List<UUID> runIds = new CopyOnWriteArrayList<>();

        List<Concurrently.Outcome<Integer>> outcomes = Concurrently.run(8, thread -> () -> {
            for (int i = 0; i < 60; i++) {
                runIds.add(runlane.template()
                        .trigger("start.quick", new Quick.Payload(thread * 1000 + i))
                        .runId());
            }
            return thread;
        });
        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);

        await().atMost(Duration.ofSeconds(60))
                .until(() -> runIds.stream().allMatch(id -> runlane.run(id).status() == RunStatus.SUCCEEDED));
        assertThat(runIds).hasSize(480).allSatisfy(id -> {
            assertThat(Quick.EXECUTIONS.get(id)).as("run %s executed once", id).hasValue(1);
            assertThat(runlane.run(id).attempts()).isOne();
        });
        assertThat(Quick.MOST_AT_ONCE.get()).isLessThanOrEqualTo(concurrency);
        assertThat(runIds.stream().filter(this::startedOnTrigger).count())
                .as("runs started on their trigger's commit")
                .isPositive();
    }

    private void insertWaitingRunOfAnotherTask(int priority) {
        runlane.jdbc()
                .update(
                        "INSERT INTO " + schema + ".runs (id, environment, task_id, queue, status, payload,"
                                + " max_attempts, run_at, created_at, updated_at, priority)"
                                + " VALUES (?, ?, 'start.elsewhere', 'default', 'QUEUED', '{}', 1,"
                                + " now() - interval '1 second', now(), now(), ?)",
                        UUID.randomUUID(),
                        runlane.engine().settings().environment(),
                        priority);
    }

    /** Whether the run's claim is its trigger's statement: only then is it at the run's creation time. */
    private boolean startedOnTrigger(UUID runId) {
        return claimedEvent(runId).createdAt().equals(runlane.run(runId).createdAt());
    }

    private RunEvent claimedEvent(UUID runId) {
        return runlane.template().runs().events(runId).stream()
                .filter(event -> event.type() == RunEventType.CLAIMED)
                .findFirst()
                .orElseThrow(() -> new AssertionError("run " + runId + " was never claimed"));
    }

    private Run awaitSucceeded(UUID runId) {
        return awaitStatus(runId, RunStatus.SUCCEEDED);
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }
}

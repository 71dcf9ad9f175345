package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.NonRetryableException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunNotFoundException;
import io.runlane.RunOperations;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.worker.RunClaims;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Cancellation (S-CA-1..4) through a real worker. Handlers block on latches or on the cancellation flag to hold a run
 * {@code RUNNING}; a retry backoff and release delay of an hour keep {@code RETRYING} and {@code RELEASED} runs
 * waiting for as long as a test needs them.
 */
@RunlaneDatabaseTest
class CancellationIntegrationTests {

    private static final String PROBED = "cancel.probe";

    private static final String RACED = "cancel.race";

    private static final String REASON = "the customer withdrew the order";

    private static final Duration HEARTBEAT = Duration.ofMillis(100);

    /** Declared but consumed by no worker, so its runs stay {@code QUEUED} for as long as a test needs. */
    private static final String IDLE_QUEUE = "idle";

    /** Declared but consumed by no worker: only the simulated dead worker claims from it. */
    private static final String ABANDONED_QUEUE = "abandoned";

    /** What a test shares with the handler of one run, by the payload's token. */
    static final Map<String, Probe> PROBES = new ConcurrentHashMap<>();

    /** Handler executions of raced runs, by run id. */
    static final Map<UUID, AtomicInteger> RACE_EXECUTIONS = new ConcurrentHashMap<>();

    /** Raced runs whose handler is running now, for the cancelling threads. */
    static final BlockingQueue<UUID> RACED_RUNNING = new LinkedBlockingQueue<>();

    static final class Probe {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch proceed = new CountDownLatch(1);

        final AtomicInteger executions = new AtomicInteger();

        volatile long sawCancellationNanos;
    }

    enum Behaviour {
        SUCCEED,
        FAIL,
        FAIL_FOR_GOOD,
        RELEASE,
        RETURN_WHEN_CANCELLED,
        THROW_WHEN_CANCELLED,
        RELEASE_WHEN_CANCELLED,
        IGNORE_CANCELLATION
    }

    /** A task whose payload scripts the handler; its keys are derived from the payload's token. */
    @Task(id = PROBED, idempotencyKeyTtl = "1h")
    public static class Probed implements TaskHandler<Probed.Payload> {

        public record Payload(String token, Behaviour behaviour) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return idempotencyKeyOf(payload.token());
        }

        @Override
        public String singletonKey(Payload payload) {
            return singletonKeyOf(payload.token());
        }

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            Probe probe = PROBES.computeIfAbsent(payload.token(), token -> new Probe());
            probe.executions.incrementAndGet();
            probe.started.countDown();
            switch (payload.behaviour()) {
                case SUCCEED -> {}
                case FAIL -> throw new IllegalStateException("the warehouse is offline");
                case FAIL_FOR_GOOD -> throw new NonRetryableException("the order does not exist");
                case RELEASE -> context.release(Duration.ofHours(1), "waiting for stock");
                case RETURN_WHEN_CANCELLED -> awaitCancellation(context, probe);
                case THROW_WHEN_CANCELLED -> {
                    awaitCancellation(context, probe);
                    throw new IllegalStateException("stopped half-way because of the cancellation");
                }
                case RELEASE_WHEN_CANCELLED -> {
                    awaitCancellation(context, probe);
                    context.release(Duration.ofHours(1), "try again later");
                }
                case IGNORE_CANCELLATION -> {
                    if (!probe.proceed.await(20, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never let the handler proceed");
                    }
                }
            }
        }

        private static void awaitCancellation(RunContext context, Probe probe) {
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .until(context::isCancellationRequested);
            probe.sawCancellationNanos = System.nanoTime();
        }
    }

    /** A task whose handler returns at once; some runs hand themselves to the cancelling threads first. */
    @Task(id = RACED)
    public static class Raced implements TaskHandler<Raced.Payload> {

        public record Payload(CancelPlan plan) {}

        @Override
        public void run(Payload payload, RunContext context) {
            RACE_EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
            if (payload.plan() == CancelPlan.WHEN_RUNNING) {
                RACED_RUNNING.add(context.runId());
            }
        }
    }

    enum CancelPlan {
        NEVER,
        RIGHT_AFTER_TRIGGER,
        WHEN_RUNNING,
        AT_A_RANDOM_TIME
    }

    @Pool(size = 24)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("cancellation") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        settings -> settings.withQueues(Set.of(IDLE_QUEUE, ABANDONED_QUEUE)),
                        ExecutionSettings.defaults()
                                .withWorker(8, Duration.ofMillis(100))
                                .withLease(Duration.ofSeconds(2), HEARTBEAT)
                                .withBackoff(Duration.ofHours(1), Duration.ofHours(1))
                                .withShutdownTimeout(Duration.ofSeconds(5))
                                .withQueues(Set.of(RunlaneSettings.DEFAULT_QUEUE)),
                        EngineListener.NONE,
                        new Probed(),
                        new Raced())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        PROBES.values().forEach(probe -> probe.proceed.countDown());
        runlane.stop();
    }

    @ParameterizedTest
    @EnumSource(
            value = RunStatus.class,
            names = {"QUEUED", "SCHEDULED", "RETRYING", "RELEASED"})
    @DisplayName("S-CA-1, S-CA-4, S-IK-3, S-SK-1: a waiting run is cancelled at once, keeps its key and frees its"
            + " singleton")
    void waitingRunIsCancelledAtOnce(RunStatus waiting) {
        String token = newToken();
        TriggerResult triggered = switch (waiting) {
            case QUEUED -> trigger(token, Behaviour.SUCCEED, options().queue(IDLE_QUEUE));
            case SCHEDULED -> trigger(token, Behaviour.SUCCEED, options().delay(Duration.ofHours(1)));
            case RETRYING -> trigger(token, Behaviour.FAIL, options());
            case RELEASED -> trigger(token, Behaviour.RELEASE, options());
            default -> throw new IllegalArgumentException(waiting.name());
        };
        UUID runId = triggered.runId();
        awaitStatus(runId, waiting);
        Run before = runlane.run(runId);
        int eventsBefore = runs().events(runId).size();

        Run cancelled = runs().cancel(runId, REASON);

        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(cancelled.finishedAt()).isNotNull();
        assertThat(cancelled.attempts()).isEqualTo(before.attempts());
        assertThat(runlane.run(runId)).isEqualTo(cancelled);
        List<RunEvent> events = runs().events(runId);
        assertThat(events).hasSize(eventsBefore + 1);
        assertThat(events.get(eventsBefore)).satisfies(event -> {
            assertThat(event.sequence()).isEqualTo(eventsBefore + 1);
            assertThat(event.type()).isEqualTo(RunEventType.CANCELLED);
            assertThat(event.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(event.actor()).isEqualTo("operator");
            assertThat(event.detail()).isEqualTo(REASON);
        });
        assertKeysFollowACancelledOwner(token, cancelled);
    }

    @Test
    @DisplayName("S-CA-2, S-CA-4: a running run is asked to stop, its handler sees that within a heartbeat, and its"
            + " return ends the run CANCELLED")
    void runningRunIsAskedToStopAndEndsCancelledWhenItsHandlerReturns() throws InterruptedException {
        String token = newToken();
        UUID runId = trigger(token, Behaviour.RETURN_WHEN_CANCELLED, options()).runId();
        Probe probe = awaitStarted(token);
        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.RUNNING);

        long cancelledNanos = System.nanoTime();
        Run answer = runs().cancel(runId, REASON);

        assertThat(answer.status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        assertThat(answer.finishedAt()).isNull();
        assertThat(lastEvent(runId)).satisfies(event -> {
            assertThat(event.type()).isEqualTo(RunEventType.CANCELLATION_REQUESTED);
            assertThat(event.status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
            assertThat(event.actor()).isEqualTo("operator");
            assertThat(event.detail()).isEqualTo(REASON);
        });
        assertThat(awaitTerminal(runId)).isEqualTo(RunStatus.CANCELLED);
        // One heartbeat is 100 ms; the margin absorbs a busy machine while staying well inside the 2 s lease.
        assertThat(Duration.ofNanos(probe.sawCancellationNanos - cancelledNanos))
                .isLessThan(Duration.ofSeconds(1));
        Run cancelled = runlane.run(runId);
        assertThat(cancelled.failure()).isNull();
        assertThat(runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.CANCELLATION_REQUESTED,
                        RunEventType.CANCELLED);
        assertThat(probe.executions).hasValue(1);
        assertKeysFollowACancelledOwner(token, cancelled);
    }

    @Test
    @DisplayName("S-CA-2, S-IK-4: a handler that throws after seeing the cancellation fails the run, without a retry")
    void handlerThatThrowsAfterTheCancellationFailsTheRunWithoutRetry() throws InterruptedException {
        String token = newToken();
        UUID runId = trigger(token, Behaviour.THROW_WHEN_CANCELLED, options()).runId();
        Probe probe = awaitStarted(token);

        assertThat(runs().cancel(runId, REASON).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);

        assertThat(awaitTerminal(runId)).isEqualTo(RunStatus.FAILED);
        Run failed = runlane.run(runId);
        assertThat(failed.attempts()).isOne();
        assertThat(failed.finishedAt()).isNotNull();
        assertThat(failed.failure()).isNotNull();
        assertThat(failed.failure().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.CANCELLATION_REQUESTED,
                        RunEventType.FAILED);
        assertThat(probe.executions).hasValue(1);
        assertThat(runlane.hasKeyRow(PROBED, idempotencyKeyOf(token)))
                .as("a failed owner releases its key")
                .isFalse();
        assertSingletonIsFree(token);
    }

    @Test
    @DisplayName(
            "S-CA-2, S-EX-6, S-EX-12: a handler that asks for a release after the cancellation ends the run CANCELLED")
    void releaseAfterTheCancellationEndsCancelled() throws InterruptedException {
        String token = newToken();
        UUID runId = trigger(token, Behaviour.RELEASE_WHEN_CANCELLED, options()).runId();
        awaitStarted(token);

        assertThat(runs().cancel(runId, REASON).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);

        assertThat(awaitTerminal(runId)).isEqualTo(RunStatus.CANCELLED);
        assertThat(runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.CANCELLATION_REQUESTED,
                        RunEventType.CANCELLED);
        assertKeysFollowACancelledOwner(token, runlane.run(runId));
    }

    @Test
    @DisplayName("S-CA-2, S-SK-1: a handler that ignores the cancellation holds its singleton and still ends the run"
            + " CANCELLED when it returns")
    void lateCompletionAfterTheCancellationEndsCancelled() throws InterruptedException {
        String token = newToken();
        UUID runId = trigger(token, Behaviour.IGNORE_CANCELLATION, options()).runId();
        Probe probe = awaitStarted(token);

        assertThat(runs().cancel(runId, REASON).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        assertThatExceptionOfType(SingletonConflictException.class)
                .as("a run asked to stop is still active")
                .isThrownBy(() -> trigger(
                        token, Behaviour.SUCCEED, options().queue(IDLE_QUEUE).idempotencyKey("another-" + token)))
                .satisfies(ex -> assertThat(ex.ownerRunId()).isEqualTo(runId));
        probe.proceed.countDown();

        assertThat(awaitTerminal(runId)).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(runId).failure()).isNull();
        assertThat(runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.CANCELLATION_REQUESTED,
                        RunEventType.CANCELLED);
        assertKeysFollowACancelledOwner(token, runlane.run(runId));
    }

    @Test
    @DisplayName("S-CA-3: cancelling a run that was already asked to stop changes nothing")
    void cancellingAgainWhileCancellationIsRequestedChangesNothing() throws InterruptedException {
        String token = newToken();
        UUID runId = trigger(token, Behaviour.IGNORE_CANCELLATION, options()).runId();
        Probe probe = awaitStarted(token);
        runs().cancel(runId, REASON);
        Run requested = runlane.run(runId);
        List<RunEvent> events = runs().events(runId);

        Run again = runs().cancel(runId, "asked twice");

        assertThat(again).isEqualTo(requested);
        assertThat(again.status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        assertThat(runlane.run(runId)).isEqualTo(requested);
        assertThat(runs().events(runId)).isEqualTo(events);
        probe.proceed.countDown();
        assertThat(awaitTerminal(runId)).isEqualTo(RunStatus.CANCELLED);
    }

    @ParameterizedTest
    @EnumSource(
            value = RunStatus.class,
            names = {"SUCCEEDED", "FAILED", "CANCELLED"})
    @DisplayName("S-CA-3, S-RL-1: cancelling a terminal run returns it unchanged and appends no event")
    void cancellingATerminalRunChangesNothing(RunStatus terminal) {
        String token = newToken();
        UUID runId = switch (terminal) {
            case SUCCEEDED -> trigger(token, Behaviour.SUCCEED, options()).runId();
            case FAILED -> trigger(token, Behaviour.FAIL_FOR_GOOD, options()).runId();
            case CANCELLED -> {
                UUID queued = trigger(token, Behaviour.SUCCEED, options().queue(IDLE_QUEUE))
                        .runId();
                runs().cancel(queued, REASON);
                yield queued;
            }
            default -> throw new IllegalArgumentException(terminal.name());
        };
        awaitStatus(runId, terminal);
        Run before = runlane.run(runId);
        List<RunEvent> events = runs().events(runId);

        Run answer = runs().cancel(runId, "too late");

        assertThat(answer).isEqualTo(before);
        assertThat(runlane.run(runId)).isEqualTo(before);
        assertThat(runs().events(runId)).isEqualTo(events);
    }

    @Test
    @DisplayName("S-ID-5: cancelling an unknown run fails with RunNotFoundException")
    void cancellingAnUnknownRunFails() {
        UUID unknown = UUID.randomUUID();
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RunNotFoundException.class)
                .isThrownBy(() -> runs().cancel(unknown, REASON))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("run_not_found");
                    assertThat(ex.runId()).isEqualTo(unknown);
                });
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-CA-2, S-EX-7: a run asked to stop whose worker died is made CANCELLED by lease recovery")
    void runAskedToStopWhoseLeaseExpiresIsCancelledByRecovery() {
        String token = newToken();
        UUID runId = trigger(token, Behaviour.SUCCEED, options().queue(ABANDONED_QUEUE))
                .runId();
        RunClaims deadWorker = new RunClaims(
                JdbcClient.create(dataSource),
                new TransactionTemplate(new JdbcTransactionManager(dataSource)),
                new SqlTemplate(runlane.schema()),
                runlane.engine().settings().environment());
        List<ClaimedRun> claimed = deadWorker.claimDue(
                "dead-worker", List.of(ABANDONED_QUEUE), List.of(PROBED), 1, Duration.ofMillis(300));
        assertThat(claimed).extracting(run -> run.run().id()).containsExactly(runId);

        assertThat(runs().cancel(runId, REASON).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseExpired(runId));
        int rescued = runlane.engine().leaseRescuer().rescueExpired();

        assertThat(rescued).isOne();
        Run recovered = runlane.run(runId);
        assertThat(recovered.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(recovered.finishedAt()).isNotNull();
        List<RunEvent> events = runs().events(runId);
        assertThat(events.get(events.size() - 1).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(events).filteredOn(event -> event.status().isTerminal()).hasSize(1);
        assertThat(PROBES.get(token).executions).as("the handler never ran").hasValue(0);
        assertKeysFollowACancelledOwner(token, recovered);
        assertThat(runlane.engine().leaseRescuer().rescueExpired()).isZero();
    }

    @Test
    @DisplayName("S-CA-1, S-CA-2, S-RL-1, S-RL-2: cancels racing completions leave every run in exactly one terminal"
            + " state")
    void cancelsRacingCompletionsLeaveEveryRunInExactlyOneTerminalState() throws InterruptedException {
        int runCount = 200;
        Random random = new Random(20_260_611L);
        Map<UUID, CancelPlan> plans = new ConcurrentHashMap<>();
        Map<UUID, Run> answers = new ConcurrentHashMap<>();
        AtomicBoolean triggering = new AtomicBoolean(true);
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
        ExecutorService cancellers = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4; i++) {
            cancellers.execute(() -> {
                try {
                    while (triggering.get() || !RACED_RUNNING.isEmpty()) {
                        UUID running = RACED_RUNNING.poll(20, TimeUnit.MILLISECONDS);
                        if (running != null) {
                            answers.put(running, runs().cancel(running, "race"));
                        }
                    }
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            for (int i = 0; i < runCount; i++) {
                CancelPlan plan = CancelPlan.values()[random.nextInt(CancelPlan.values().length)];
                UUID runId = runlane.template()
                        .trigger(RACED, new Raced.Payload(plan))
                        .runId();
                plans.put(runId, plan);
                switch (plan) {
                    case RIGHT_AFTER_TRIGGER -> answers.put(runId, runs().cancel(runId, "race"));
                    case AT_A_RANDOM_TIME ->
                        timers.schedule(
                                () -> answers.put(runId, runs().cancel(runId, "race")),
                                random.nextInt(10),
                                TimeUnit.MILLISECONDS);
                    default -> {}
                }
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> activeRuns(RACED) == 0);
        } finally {
            triggering.set(false);
            timers.shutdown();
            cancellers.shutdown();
            assertThat(timers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(cancellers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }

        int cancelledWhileRunning = 0;
        for (Map.Entry<UUID, CancelPlan> entry : plans.entrySet()) {
            UUID runId = entry.getKey();
            Run run = runlane.run(runId);
            List<RunEvent> events = runs().events(runId);
            Run answer = answers.get(runId);
            int executions =
                    RACE_EXECUTIONS.getOrDefault(runId, new AtomicInteger()).get();
            String described = runId + " planned " + entry.getValue() + ", cancel answered "
                    + (answer == null ? "nothing" : answer.status()) + ", events " + events;
            assertThat(run.status()).as(described).isIn(RunStatus.SUCCEEDED, RunStatus.CANCELLED);
            assertThat(events)
                    .as(described)
                    .extracting(RunEvent::sequence)
                    .containsExactlyElementsOf(
                            IntStream.rangeClosed(1, events.size()).boxed().toList());
            assertThat(events)
                    .as(described)
                    .filteredOn(event -> event.status().isTerminal())
                    .hasSize(1);
            assertThat(events.get(events.size() - 1).status()).as(described).isEqualTo(run.status());
            assertThat(executions).as(described).isLessThanOrEqualTo(1);
            boolean askedWhileRunning =
                    events.stream().anyMatch(event -> event.type() == RunEventType.CANCELLATION_REQUESTED);
            if (entry.getValue() == CancelPlan.NEVER) {
                assertThat(answer).as(described).isNull();
                assertThat(run.status()).as(described).isEqualTo(RunStatus.SUCCEEDED);
                continue;
            }
            assertThat(answer).as(described).isNotNull();
            switch (answer.status()) {
                case CANCELLED, CANCELLATION_REQUESTED ->
                    assertThat(run.status()).as(described).isEqualTo(RunStatus.CANCELLED);
                case SUCCEEDED -> assertThat(run.status()).as(described).isEqualTo(RunStatus.SUCCEEDED);
                default ->
                    throw new AssertionError(
                            "a cancel answered neither a cancellation nor a terminal run: " + described);
            }
            if (run.status() == RunStatus.CANCELLED) {
                assertThat(executions)
                        .as("a run cancelled while waiting never runs; one asked while running ran once: " + described)
                        .isEqualTo(askedWhileRunning ? 1 : 0);
            }
            if (askedWhileRunning) {
                cancelledWhileRunning++;
            }
        }
        assertThat(plans).hasSize(runCount);
        assertThat(cancelledWhileRunning)
                .as("some cancels reached runs while their handlers ran")
                .isPositive();
    }

    private static void assertKeysFollowACancelledOwner(String token, Run cancelled) {
        assertThat(runlane.retainedUntil(PROBED, idempotencyKeyOf(token)))
                .as("S-IK-3: a cancelled owner keeps its key for the TTL")
                .isEqualTo(cancelled.finishedAt().plus(Duration.ofHours(1)));
        TriggerResult duplicate = runlane.template()
                .trigger(
                        PROBED,
                        new Probed.Payload(token, Behaviour.SUCCEED),
                        options().queue(IDLE_QUEUE).build());
        assertThat(duplicate.created()).isFalse();
        assertThat(duplicate.runId()).isEqualTo(cancelled.id());
        assertThat(duplicate.run().status()).isEqualTo(RunStatus.CANCELLED);
        assertSingletonIsFree(token);
    }

    /** S-SK-1: another identity can take the singleton; the new run waits in a queue no worker consumes. */
    private static void assertSingletonIsFree(String token) {
        TriggerResult next = runlane.template()
                .trigger(
                        PROBED,
                        new Probed.Payload(token, Behaviour.SUCCEED),
                        options()
                                .queue(IDLE_QUEUE)
                                .idempotencyKey("another-request-" + token)
                                .build());
        assertThat(next.created()).as("the singleton was released").isTrue();
        assertThat(runs().cancel(next.runId(), "clean-up").status()).isEqualTo(RunStatus.CANCELLED);
    }

    private static TriggerResult trigger(String token, Behaviour behaviour, TriggerOptions.Builder options) {
        return runlane.template().trigger(PROBED, new Probed.Payload(token, behaviour), options.build());
    }

    private static TriggerOptions.Builder options() {
        return TriggerOptions.builder();
    }

    private static RunOperations runs() {
        return runlane.template().runs();
    }

    private static String newToken() {
        String token = UUID.randomUUID().toString();
        PROBES.put(token, new Probe());
        return token;
    }

    private static Probe awaitStarted(String token) throws InterruptedException {
        Probe probe = PROBES.get(token);
        assertThat(probe.started.await(10, TimeUnit.SECONDS))
                .as("the handler started")
                .isTrue();
        return probe;
    }

    private static void awaitStatus(UUID runId, RunStatus status) {
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(runId).status(), status::equals);
    }

    private static RunStatus awaitTerminal(UUID runId) {
        return await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId).status(), RunStatus::isTerminal);
    }

    private static RunEvent lastEvent(UUID runId) {
        List<RunEvent> events = runs().events(runId);
        return events.get(events.size() - 1);
    }

    private static boolean leaseExpired(UUID runId) {
        return Boolean.TRUE.equals(runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at < statement_timestamp() FROM " + runlane.schema()
                                + ".runs WHERE id = ?",
                        Boolean.class,
                        runId));
    }

    private static long activeRuns(String taskId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE task_id = ? AND finished_at IS NULL",
                        Long.class,
                        taskId);
    }

    private static String idempotencyKeyOf(String token) {
        return "order." + token;
    }

    private static String singletonKeyOf(String token) {
        return "slot." + token;
    }
}

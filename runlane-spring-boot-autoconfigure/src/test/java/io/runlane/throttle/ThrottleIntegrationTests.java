package io.runlane.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-TH-1..3: a throttled task's attempts start at most N per key in any window of its period, across instances with
 * pools of their own, judged from {@code RunAttempt.startedAt}; the backlog drains and other keys, tasks and queues
 * are not delayed.
 */
@RunlaneDatabaseTest
class ThrottleIntegrationTests {

    private static final int LIMIT = 3;

    private static final Duration PERIOD = Duration.ofMillis(400);

    /** The labels of the runs in the order their handlers started. */
    static final List<String> STARTED = new CopyOnWriteArrayList<>();

    /** Failures left per label, for the retry test. */
    static final Map<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();

    @Pool(size = 6)
    private static HikariDataSource first;

    @Pool(size = 6)
    private static HikariDataSource second;

    @Pool(size = 6)
    private static HikariDataSource third;

    /** Throttled per the payload's key; fails as often as {@link #FAILURES} says for its label. */
    @Task(id = "throttle.perKey", throttle = LIMIT, throttlePeriod = "400ms", maxAttempts = 3, backoff = "1ms")
    public static class PerKey implements TaskHandler<Payload> {

        @Override
        public @Nullable String throttleKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
            AtomicInteger failures = FAILURES.get(payload.label());
            if (failures != null && failures.getAndDecrement() > 0) {
                throw new IllegalStateException("failing on purpose");
            }
        }
    }

    /** One throttle for the whole task. */
    @Task(id = "throttle.whole", throttle = LIMIT, throttlePeriod = "400ms")
    public static class Whole implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** No throttle. */
    @Task(id = "throttle.free")
    public static class Free implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** A task throttled to one start a day, as an older deployment declared it. */
    @Task(id = "throttle.dropped", throttle = 1, throttlePeriod = "1d")
    public static class DroppedBefore implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** The same task, no longer throttled. */
    @Task(id = "throttle.dropped")
    public static class DroppedNow implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** Five starts a second for the whole task, for the test of how soon a freed start is taken. */
    @Task(id = "throttle.paced", throttle = 5, throttlePeriod = "1s")
    public static class Paced implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** One start an hour per key, for the test of a task at rest after a short claim. */
    @Task(id = "throttle.hourly", throttle = 1, throttlePeriod = "1h")
    public static class Hourly implements TaskHandler<Payload> {

        @Override
        public @Nullable String throttleKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** Released by a test that froze an instance with the first attempt of a {@link Freezing} run in hand. */
    static volatile CountDownLatch thaw = new CountDownLatch(0);

    /** Counted down when the first attempt of a {@link Freezing} run has started. */
    static volatile CountDownLatch frozen = new CountDownLatch(0);

    /**
     * One start a {@link #FREEZING_PERIOD} for the whole task; its first attempt hangs until {@link #thaw} opens,
     * as on an instance that froze with the attempt in hand.
     */
    @Task(id = "throttle.freezing", throttle = 1, throttlePeriod = "6s", maxAttempts = 2, backoff = "1ms")
    public static class Freezing implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            STARTED.add(payload.label() + ":" + context.attempt());
            if (context.attempt() == 1) {
                frozen.countDown();
                thaw.await(30, TimeUnit.SECONDS);
            }
        }
    }

    private static final Duration FREEZING_PERIOD = Duration.ofSeconds(6);

    public record Payload(String label, @Nullable String key) {}

    private final List<TestRunlane> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        thaw.countDown();
        instances.forEach(TestRunlane::stop);
        STARTED.clear();
        FAILURES.clear();
    }

    /** An instance per pool on {@code schema}, each with {@code slots} worker slots, workers not started. */
    private List<TestRunlane> instances(String schema, int slots, HikariDataSource... pools) {
        List<TestRunlane> created = new ArrayList<>();
        for (HikariDataSource pool : pools) {
            TestRunlane runlane = TestRunlane.withExecution(
                    pool,
                    schema,
                    UnaryOperator.identity(),
                    ExecutionSettings.defaults().withWorker(slots, Duration.ofMillis(100)),
                    EngineListener.NONE,
                    new PerKey(),
                    new Whole(),
                    new Free());
            created.add(runlane);
            instances.add(runlane);
        }
        return created;
    }

    /** An instance on {@code pool} and {@code schema} with {@code slots} worker slots and one task, worker not started. */
    private TestRunlane instance(
            HikariDataSource pool, String schema, int slots, Duration pollInterval, Object handler) {
        TestRunlane runlane = TestRunlane.withExecution(
                pool,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults().withWorker(slots, pollInterval),
                EngineListener.NONE,
                handler);
        instances.add(runlane);
        return runlane;
    }

    private static List<Run> trigger(TestRunlane runlane, String taskId, String prefix, @Nullable String key, int n) {
        return IntStream.range(0, n)
                .mapToObj(i -> runlane.template()
                        .trigger(taskId, new Payload(prefix + i, key))
                        .run())
                .toList();
    }

    private static void awaitSucceeded(TestRunlane runlane, List<Run> runs, Duration atMost) {
        await().atMost(atMost)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> runs.stream().allMatch(run -> runlane.run(run.id()).status() == RunStatus.SUCCEEDED));
    }

    /** The start times of every attempt of these runs, sorted. */
    private static List<Instant> starts(TestRunlane runlane, List<Run> runs) {
        return runs.stream()
                .flatMap(run -> runlane.template().runs().attempts(run.id()).stream())
                .map(RunAttempt::startedAt)
                .sorted()
                .toList();
    }

    /** Every window of {@link #PERIOD} holds at most {@link #LIMIT} of the sorted starts. */
    private static void assertWithinThrottle(List<Instant> starts) {
        for (int i = 0; i + LIMIT < starts.size(); i++) {
            Duration apart = Duration.between(starts.get(i), starts.get(i + LIMIT));
            assertThat(apart).as("starts %d and %d of %s", i, i + LIMIT, starts).isGreaterThanOrEqualTo(PERIOD);
        }
    }

    @Test
    @DisplayName("S-TH-1, S-TH-3: three instances start at most N attempts per key in any window, judged from"
            + " RunAttempt.startedAt, and every key's backlog completes")
    void threeInstancesKeepEveryWindow(@FreshSchema("throttle_windows") String schema) {
        List<TestRunlane> runlanes = instances(schema, 4, first, second, third);
        TestRunlane runlane = runlanes.get(0);
        List<Run> keyA = trigger(runlane, "throttle.perKey", "a", "a", 12);
        List<Run> keyB = trigger(runlanes.get(1), "throttle.perKey", "b", "b", 12);
        List<Run> whole = trigger(runlanes.get(2), "throttle.whole", "w", null, 12);

        runlanes.forEach(TestRunlane::startWorker);
        awaitSucceeded(runlane, keyA, Duration.ofSeconds(30));
        awaitSucceeded(runlane, keyB, Duration.ofSeconds(30));
        awaitSucceeded(runlane, whole, Duration.ofSeconds(30));

        assertWithinThrottle(starts(runlane, keyA));
        assertWithinThrottle(starts(runlane, keyB));
        assertWithinThrottle(starts(runlane, whole));
        List<Instant> both = new ArrayList<>(starts(runlane, keyA));
        both.addAll(starts(runlane, keyB));
        both.sort(null);
        assertThat(Duration.between(both.get(0), both.get(LIMIT)))
                .as("two keys have a window each")
                .isLessThan(PERIOD);
    }

    @Test
    @DisplayName("S-TH-2: the worker takes each freed start when its window frees it, not at its next poll: a key of"
            + " 5 starts a second drains 20 runs in about 4 periods with a 30 s poll interval")
    void aFreedStartIsTakenWithoutWaitingForThePollInterval(@FreshSchema("throttle_paced") String schema) {
        // One slot: the starts of a window come one claim after another, so each frees on its own, and a claim's
        // start may leave the window while the claim's transaction still judges which keys are at their limit.
        TestRunlane runlane = instance(first, schema, 1, Duration.ofSeconds(30), new Paced());
        List<Run> runs = trigger(runlane, "throttle.paced", "p", null, 20);

        runlane.startWorker();
        // 20 starts at 5 per second take 3 periods after the first; the bound leaves room for a loaded machine and
        // stays far below the poll interval (at least 24 s with its jitter), which a missed wake-up would cost.
        awaitSucceeded(runlane, runs, Duration.ofSeconds(4 + 8));

        List<Instant> starts = starts(runlane, runs);
        assertThat(starts).hasSize(20);
        for (int i = 0; i + 5 < starts.size(); i++) {
            assertThat(Duration.between(starts.get(i), starts.get(i + 5)))
                    .as("starts %d and %d of %s", i, i + 5, starts)
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    @Test
    @DisplayName("S-TH-2: a throttled task at rest after a short claim claims again when a trigger notifies the worker:"
            + " a new key's run starts at once although the saturated key frees no start for an hour and the poll"
            + " interval is 30 s")
    void aNotifiedRunEndsTheRestOfItsThrottledTask(@FreshSchema("throttle_rest") String schema) {
        TestRunlane runlane = instance(first, schema, 2, Duration.ofSeconds(30), new Hourly());
        List<Run> saturated = trigger(runlane, "throttle.hourly", "busy", "busy", 2);
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(10)).until(() -> STARTED.contains("busy0"));
        // the worker's claims now come back short: key busy is at its throttle for an hour, so the task rests

        List<Run> otherKey = trigger(runlane, "throttle.hourly", "new", "new", 1);

        awaitSucceeded(runlane, otherKey, Duration.ofSeconds(5));
        assertThat(runlane.run(saturated.get(1).id()).status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-TH-2: a saturated key holds no slot and delays neither another key nor another task in its queue")
    void aSaturatedKeyDelaysNobody(@FreshSchema("throttle_others") String schema) {
        List<TestRunlane> runlanes = instances(schema, 2, first, second);
        TestRunlane runlane = runlanes.get(0);
        List<Run> backlog = trigger(runlane, "throttle.perKey", "slow", "slow", 30);
        runlanes.forEach(TestRunlane::startWorker);
        await().atMost(Duration.ofSeconds(10)).until(() -> STARTED.size() >= LIMIT);

        List<Run> otherKey = trigger(runlane, "throttle.perKey", "fast", "fast", LIMIT);
        List<Run> otherTask = trigger(runlanes.get(1), "throttle.free", "free", null, 20);
        awaitSucceeded(runlane, otherKey, Duration.ofSeconds(3));
        awaitSucceeded(runlane, otherTask, Duration.ofSeconds(3));

        long backlogLeft = backlog.stream()
                .filter(run -> runlane.run(run.id()).status() != RunStatus.SUCCEEDED)
                .count();
        assertThat(backlogLeft).as("the throttled backlog still waits").isGreaterThan(10);
        awaitSucceeded(runlane, backlog, Duration.ofSeconds(30));
        assertWithinThrottle(starts(runlane, backlog));
    }

    @Test
    @DisplayName("S-TH-1: retries count as attempt starts of their key")
    void retriesCount(@FreshSchema("throttle_retries") String schema) {
        List<TestRunlane> runlanes = instances(schema, 4, first, second);
        TestRunlane runlane = runlanes.get(0);
        IntStream.range(0, 6).forEach(i -> FAILURES.put("r" + i, new AtomicInteger(1)));
        List<Run> runs = trigger(runlane, "throttle.perKey", "r", "retried", 6);

        runlanes.forEach(TestRunlane::startWorker);
        awaitSucceeded(runlane, runs, Duration.ofSeconds(30));

        List<Instant> starts = starts(runlane, runs);
        assertThat(starts).hasSize(12);
        assertWithinThrottle(starts);
    }

    @Test
    @DisplayName("S-TH-2, S-PR-2: within a throttled key the due runs start highest priority first, then oldest first")
    void priorityOrdersAThrottledKey(@FreshSchema("throttle_priority") String schema) {
        TestRunlane runlane = instances(schema, 1, first).get(0);
        List<Run> runs = new ArrayList<>();
        for (String label : List.of("p0", "p5-a", "p-3", "p5-b", "p9")) {
            int priority = Integer.parseInt(label.substring(1).replace("-a", "").replace("-b", ""));
            runs.add(runlane.template()
                    .trigger(
                            "throttle.perKey",
                            new Payload(label, "ordered"),
                            TriggerOptions.builder().priority(priority).build())
                    .run());
        }

        runlane.startWorker();
        awaitSucceeded(runlane, runs, Duration.ofSeconds(30));

        assertThat(STARTED).containsExactly("p9", "p5-a", "p5-b", "p0", "p-3");
        assertWithinThrottle(starts(runlane, runs));
    }

    @Test
    @DisplayName("S-TH-1, S-TH-2: runs admitted while their task was throttled start without it once no instance"
            + " declares it")
    void aDroppedThrottleReleasesItsRuns(@FreshSchema("throttle_dropped") String schema) {
        TestRunlane before = instance(first, schema, 2, Duration.ofMillis(100), new DroppedBefore());
        List<Run> runs = trigger(before, "throttle.dropped", "d", null, 3);
        TestRunlane now = instance(second, schema, 2, Duration.ofMillis(100), new DroppedNow());

        now.startWorker();

        awaitSucceeded(now, runs, Duration.ofSeconds(10));
    }

    @Test
    @DisplayName("S-TH-1, S-EX-7: a run recovered after its lease expired counts again: its next attempt starts only"
            + " once the first attempt's start has left the window")
    void aRecoveredRunCountsAgain(
            @FreshSchema("throttle_recovered") String schema, @Pool(size = 4) HikariDataSource dying)
            throws InterruptedException {
        ExecutionSettings execution = ExecutionSettings.defaults()
                .withWorker(1, Duration.ofMillis(100))
                .withLease(Duration.ofSeconds(1), Duration.ofMillis(200))
                .withRecoveryInterval(Duration.ofMillis(100))
                .withShutdownTimeout(Duration.ofMillis(500));
        TestRunlane doomed = TestRunlane.withExecution(
                dying, schema, UnaryOperator.identity(), execution, EngineListener.NONE, new Freezing());
        instances.add(doomed);
        TestRunlane survivor = TestRunlane.withExecution(
                second, schema, UnaryOperator.identity(), execution, EngineListener.NONE, new Freezing());
        instances.add(survivor);
        Run run = survivor.template()
                .trigger("throttle.freezing", new Payload("f", null))
                .run();
        thaw = new CountDownLatch(1);
        frozen = new CountDownLatch(1);

        doomed.startWorker();
        assertThat(frozen.await(10, TimeUnit.SECONDS))
                .as("the first attempt started")
                .isTrue();
        dying.close();
        survivor.startWorker().startMaintenance();
        Instant recovered = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> survivor.template().runs().events(run.id()).stream()
                                .filter(event -> event.type() == RunEventType.LEASE_EXPIRED)
                                .map(RunEvent::createdAt)
                                .findFirst()
                                .orElse(null),
                        at -> at != null);

        awaitSucceeded(survivor, List.of(run), Duration.ofSeconds(20));

        List<RunAttempt> attempts = survivor.template().runs().attempts(run.id()).stream()
                .sorted(Comparator.comparingInt(RunAttempt::attempt))
                .toList();
        assertThat(attempts).hasSize(2);
        Instant firstStart = attempts.get(0).startedAt();
        assertThat(recovered)
                .as("the run was due again well inside the first start's window")
                .isBefore(firstStart.plus(FREEZING_PERIOD).minusMillis(500));
        assertThat(Duration.between(firstStart, attempts.get(1).startedAt()))
                .as("the recovered attempt waited for the first start to leave the window")
                .isGreaterThanOrEqualTo(FREEZING_PERIOD);
        assertThat(STARTED).containsExactly("f:1", "f:2");
    }

    @Test
    @DisplayName("S-TH-1, S-OP-9: a rerun or fork given a throttle key starts under that key; without one the task's"
            + " resolver gives it from the payload")
    void rerunsTakeTheThrottleKeyOfTheirOptions(@FreshSchema("throttle_rerun_key") String schema) {
        TestRunlane runlane = instances(schema, 1, first).get(0);
        Run source = trigger(runlane, "throttle.perKey", "r", "k", 1).get(0);
        runlane.finish(source.id(), RunStatus.FAILED);
        TriggerOptions other = TriggerOptions.builder().throttleKey("other").build();

        Run rerun = runlane.template().runs().rerun(source.id(), other);
        Run fork = runlane.template().runs().fork(source.id(), null, other);
        Run inherited = runlane.template().runs().rerun(source.id());

        assertThat(Stream.of(rerun, fork, inherited)
                        .map(run -> runlane.jdbc()
                                .queryForObject(
                                        "SELECT throttle_key FROM " + schema + ".runs WHERE id = ?",
                                        String.class,
                                        run.id()))
                        .toList())
                .containsExactly("other", "other", "k");
    }

    @Test
    @DisplayName("S-TH-1: an invalid per-call throttle key, or one for a task without a throttle, fails the trigger"
            + " naming throttleKey, and nothing is written")
    void badThrottleKeysAreRefused(@FreshSchema("throttle_bad") String schema) {
        TestRunlane runlane = instances(schema, 1, first).get(0);

        assertThatThrownBy(() -> runlane.template()
                        .trigger(
                                "throttle.perKey",
                                new Payload("x", null),
                                TriggerOptions.builder().throttleKey("").build()))
                .isInstanceOfSatisfying(
                        InvalidKeyException.class,
                        ex -> assertThat(ex.getMessage()).contains("throttleKey"));
        assertThatThrownBy(() -> runlane.template()
                        .trigger(
                                "throttle.free",
                                new Payload("x", null),
                                TriggerOptions.builder().throttleKey("k").build()))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.getMessage()).contains("throttleKey"));
        assertThatThrownBy(() -> runlane.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("throttle.perKey", new Payload("ok", "k"), TriggerOptions.none()),
                                TriggerRequest.of(
                                        "throttle.perKey",
                                        new Payload("bad", null),
                                        TriggerOptions.builder()
                                                .throttleKey("x".repeat(10_000))
                                                .build()))))
                .isInstanceOfSatisfying(
                        InvalidKeyException.class,
                        ex -> assertThat(ex.getMessage()).contains("throttleKey"));

        assertThat(runlane.rowCounts().runs()).isZero();
    }
}

package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunAwaitTimeoutException;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunFailedException;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Durable waits (S-ST-7, S-RS-4): a parked run is {@code WAITING}, holds no slot, lease or queue capacity, keeps its
 * keys, spends no retry budget, and wakes by time or by the end of the run it awaits. Every task here runs in the
 * queue {@code solo}, whose concurrency limit is 1.
 */
@RunlaneDatabaseTest
class DurableWaitIntegrationTests {

    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    static int calls(UUID runId, String what) {
        return CALLS.getOrDefault(runId + "/" + what, new AtomicInteger()).get();
    }

    static void count(UUID runId, String what) {
        CALLS.computeIfAbsent(runId + "/" + what, key -> new AtomicInteger()).incrementAndGet();
    }

    /** A step, a sleep, another sleep, then a failure on the first attempt after the sleeps, then a step. */
    @Task(id = "waits.sleeper", queue = "solo", maxAttempts = 2)
    public static class Sleeper implements TaskHandler<Sleeper.Payload> {

        public record Payload(String key, long millis) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.step("before", step -> count(step.runId(), "before"));
            context.sleep("nap", Duration.ofMillis(payload.millis()));
            context.sleep("second-nap", Duration.ofMillis(payload.millis()));
            if (calls(context.runId(), "woke") == 0) {
                count(context.runId(), "woke");
                throw new IllegalStateException("first attempt after the naps fails");
            }
            context.step("after", step -> count(step.runId(), "after"));
        }
    }

    /** Runs in the same limited queue, to prove that a sleeping run holds no capacity. */
    @Task(id = "waits.quick", queue = "solo")
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A child that returns its input, or fails, or waits for its latch. */
    @Task(id = "waits.child", queue = "solo")
    public static class Child implements TaskFunction<Child.Payload, String> {

        public record Payload(String value, boolean fail, boolean hold) {}

        static final CountDownLatch HOLD = new CountDownLatch(1);

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            if (payload.hold()) {
                HOLD.await(30, TimeUnit.SECONDS);
            }
            if (payload.fail()) {
                throw new io.runlane.NonRetryableException("child refused " + payload.value());
            }
            return payload.value().toUpperCase();
        }
    }

    /** Triggers its child in a step (the step id as the child's idempotency key), then awaits it. */
    @Task(id = "waits.parent", queue = "solo")
    public static class Parent implements TaskFunction<Parent.Payload, String> {

        public record Payload(String value, boolean childFails, long timeoutMillis, boolean childWaitsOutside) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            count(context.runId(), "executions");
            UUID child = context.step(
                    "spawn",
                    UUID.class,
                    step -> context.runlane()
                            .trigger(
                                    "waits.child",
                                    new Child.Payload(payload.value(), payload.childFails(), false),
                                    TriggerOptions.builder()
                                            .idempotencyKey(step.stepId())
                                            .queue(payload.childWaitsOutside() ? "elsewhere" : null)
                                            .build())
                            .runId());
            try {
                return context.awaitResult(child, String.class, Duration.ofMillis(payload.timeoutMillis())) + "!";
            } catch (RunFailedException ex) {
                return "child failed: " + ex.failure().code();
            } catch (RunAwaitTimeoutException ex) {
                return "timed out waiting for " + ex.runId();
            }
        }
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("waits") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of("solo", "elsewhere")),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(Duration.ofSeconds(5), Duration.ofMillis(500))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withRecoveryInterval(Duration.ofMillis(200))
                        .withConcurrencyLimits(Map.of("solo", 1))
                        .withQueues(Set.of("solo", "default")),
                io.runlane.internal.kernel.EngineListener.NONE,
                new Sleeper(),
                new Quick(),
                new Child(),
                new Parent());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    @Test
    @DisplayName("S-ST-7, S-QC-2, S-SK-1: a sleeping run is WAITING without a lease, a limit-1 queue runs others"
            + " meanwhile, it keeps its singleton key, and it resumes without repeating earlier steps or spending"
            + " retry budget")
    void sleepingRunHoldsNoCapacityAndResumes() {
        UUID sleeper = runlane.template()
                .trigger("waits.sleeper", new Sleeper.Payload("s-1", 1500))
                .runId();
        runlane.startWorker();

        Run waiting = awaitStatus(sleeper, RunStatus.WAITING);
        assertThat(waiting.runAt()).isAfter(waiting.updatedAt());
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT lease_owner FROM " + runlane.schema() + ".runs WHERE id = ?",
                                String.class,
                                sleeper))
                .isNull();
        assertThat(runlane.template().runs().findActive("waits.sleeper", null, "s-1"))
                .hasValueSatisfying(run -> assertThat(run.id()).isEqualTo(sleeper));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> runlane.template().trigger("waits.sleeper", new Sleeper.Payload("s-1", 1)))
                .isInstanceOf(SingletonConflictException.class);

        UUID quick = runlane.template()
                .trigger("waits.quick", new Quick.Payload("q"))
                .runId();
        awaitStatus(quick, RunStatus.SUCCEEDED);
        assertThat(runlane.run(sleeper).status()).isEqualTo(RunStatus.WAITING);

        Run done = awaitStatus(sleeper, RunStatus.SUCCEEDED);
        assertThat(calls(sleeper, "before")).isEqualTo(1);
        assertThat(calls(sleeper, "after")).isEqualTo(1);
        assertThat(done.attempts()).as("two parks, one failure, one success").isEqualTo(4);
        assertThat(runlane.template().runs().events(sleeper))
                .extracting(RunEvent::type)
                .containsSubsequence(
                        RunEventType.CLAIMED,
                        RunEventType.STEP_COMPLETED,
                        RunEventType.STEP_COMPLETED,
                        RunEventType.WAITING,
                        RunEventType.CLAIMED,
                        RunEventType.STEP_COMPLETED,
                        RunEventType.WAITING,
                        RunEventType.CLAIMED,
                        RunEventType.RETRY_SCHEDULED,
                        RunEventType.CLAIMED,
                        RunEventType.STEP_COMPLETED,
                        RunEventType.SUCCEEDED);
        Instant wakeAt = OffsetDateTime.parse(runlane.template().runs().steps(sleeper).stream()
                        .filter(step -> step.name().equals("nap"))
                        .findFirst()
                        .orElseThrow()
                        .resultJson()
                        .replace("\"", ""))
                .toInstant();
        assertThat(wakeAt).isAfter(done.createdAt().plusMillis(1400));
    }

    @Test
    @DisplayName("S-CA-1: cancelling a WAITING run makes it CANCELLED at once and frees its singleton key")
    void cancellingAWaitingRunIsImmediate() {
        UUID sleeper = runlane.template()
                .trigger(
                        "waits.sleeper",
                        new Sleeper.Payload("s-2", Duration.ofHours(1).toMillis()))
                .runId();
        runlane.startWorker();
        awaitStatus(sleeper, RunStatus.WAITING);

        Run cancelled = runlane.template().runs().cancel(sleeper, "no longer needed");

        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(cancelled.finishedAt()).isNotNull();
        assertThat(runlane.template()
                        .trigger("waits.sleeper", new Sleeper.Payload("s-2", 1))
                        .created())
                .isTrue();
    }

    @Test
    @DisplayName("S-RS-4: a parent awaiting its child in a queue with concurrency limit 1 completes with the"
            + " child's result, and the child is triggered once")
    void parentAwaitingChildInALimitOneQueueCompletes() {
        UUID parent = runlane.template()
                .trigger("waits.parent", new Parent.Payload("gift", false, 30_000, false))
                .runId();
        runlane.startWorker();

        Run done = awaitStatus(parent, RunStatus.SUCCEEDED);
        assertThat(done.resultJson()).isEqualTo("\"GIFT!\"");
        assertThat(runlane.template().runs().events(parent))
                .extracting(RunEvent::type)
                .contains(RunEventType.WAITING);
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE task_id = 'waits.child'",
                                Long.class))
                .isEqualTo(1);
        assertThat(runlane.template().runs().steps(parent))
                .extracting(io.runlane.RunStep::name)
                .contains("spawn");
    }

    @Test
    @DisplayName("S-RS-4: a parent awaiting a failing child gets RunFailedException with the child's failure")
    void parentSeesTheChildsFailure() {
        UUID parent = runlane.template()
                .trigger("waits.parent", new Parent.Payload("x", true, 30_000, false))
                .runId();
        runlane.startWorker();

        Run done = awaitStatus(parent, RunStatus.SUCCEEDED);
        assertThat(done.resultJson()).isEqualTo("\"child failed: non_retryable\"");
    }

    @Test
    @DisplayName("S-RS-4: an await whose child never runs times out with RunAwaitTimeoutException, memoized")
    void awaitTimesOut() {
        UUID parent = runlane.template()
                .trigger("waits.parent", new Parent.Payload("late", false, 700, true))
                .runId();
        runlane.startWorker();

        Run done = awaitStatus(parent, RunStatus.SUCCEEDED);
        assertThat(done.resultJson()).startsWith("\"timed out waiting for ");
        assertThat(runlane.template().runs().steps(parent))
                .filteredOn(step -> step.name().startsWith("awaitResult."))
                .extracting(io.runlane.RunStep::resultJson)
                .anySatisfy(json -> assertThat(json).contains("TIMED_OUT"));
    }
}

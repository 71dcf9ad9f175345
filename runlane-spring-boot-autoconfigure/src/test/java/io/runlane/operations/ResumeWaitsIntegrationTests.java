package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunQuery;
import io.runlane.RunSignal;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-RV-6, S-RV-7: resuming a run that was cancelled while it waited, or that failed inside a wait, and the signals
 * in its mailbox.
 */
@RunlaneDatabaseTest
class ResumeWaitsIntegrationTests {

    /** Calls of each step function and executions of each handler, by "<run id>/<name>". */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** Holds the child task's handler until the test lets it return. */
    static volatile CountDownLatch childGate = new CountDownLatch(0);

    /** Whether the gated task's {@code prepare} step still fails. */
    static final AtomicBoolean PREPARE_FAILS = new AtomicBoolean();

    static int count(UUID runId, String name) {
        return CALLS.getOrDefault(runId + "/" + name, new AtomicInteger()).get();
    }

    static void called(UUID runId, String name) {
        CALLS.computeIfAbsent(runId + "/" + name, key -> new AtomicInteger()).incrementAndGet();
    }

    /** A step, a durable sleep of the payload's length, another step. */
    @Task(id = "resumewait.sleeper", maxAttempts = 1)
    public static class Sleeper implements TaskFunction<Sleeper.Payload, String> {

        public record Payload(long sleepMillis) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            called(context.runId(), "execution");
            context.step("before", String.class, step -> {
                called(step.runId(), "before");
                return "b";
            });
            context.sleep("nap", Duration.ofMillis(payload.sleepMillis()));
            return context.step("after", String.class, step -> {
                called(step.runId(), "after");
                return "done";
            });
        }
    }

    /** Returns its payload once the test opens {@link #childGate}. */
    @Task(id = "resumewait.child")
    public static class Child implements TaskFunction<Child.Payload, String> {

        public record Payload(String answer) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            if (!childGate.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate never opened");
            }
            return payload.answer();
        }
    }

    /** Triggers a child in a step (delayed by the payload's delay), then awaits its result. */
    @Task(id = "resumewait.parent", maxAttempts = 1)
    public static class Parent implements TaskFunction<Parent.Payload, String> {

        public record Payload(long childDelayMillis, long timeoutMillis) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            called(context.runId(), "execution");
            String child = context.step("spawn", String.class, step -> {
                called(step.runId(), "spawn");
                return context.runlane()
                        .trigger(
                                "resumewait.child",
                                new Child.Payload("child-answer"),
                                TriggerOptions.builder()
                                        .delay(Duration.ofMillis(payload.childDelayMillis()))
                                        .build())
                        .runId()
                        .toString();
            });
            return context.awaitResult(
                    UUID.fromString(child), String.class, Duration.ofMillis(payload.timeoutMillis()));
        }
    }

    /**
     * A {@code prepare} step that fails while {@link #PREPARE_FAILS} is set, then awaits the signals {@code a} and
     * {@code b}; an await that times out fails the run.
     */
    @Task(id = "resumewait.gated", maxAttempts = 1)
    public static class Gated implements TaskFunction<Gated.Payload, String> {

        public record Payload(long timeoutMillis) {}

        public record Approval(String by) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            called(context.runId(), "execution");
            context.step("prepare", step -> {
                if (PREPARE_FAILS.get()) {
                    throw new IllegalStateException("upstream down");
                }
            });
            Duration timeout = Duration.ofMillis(payload.timeoutMillis());
            String a = context.awaitSignal("a", Approval.class, timeout)
                    .orElseThrow(() -> new IllegalStateException("no signal a"))
                    .by();
            String b = context.awaitSignal("b", Approval.class, timeout)
                    .orElseThrow(() -> new IllegalStateException("no signal b"))
                    .by();
            return a + "," + b;
        }
    }

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("resumewait") String schema) {
        PREPARE_FAILS.set(false);
        childGate = new CountDownLatch(0);
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Sleeper(),
                new Child(),
                new Parent(),
                new Gated());
    }

    @AfterEach
    void stop() {
        childGate.countDown();
        runlane.stop();
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    private UUID trigger(String taskId, Object payload) {
        return runlane.template().trigger(taskId, payload).runId();
    }

    /** The types of the run's events after its (single) {@code RESUMED} event. */
    private List<RunEventType> eventsAfterResume(UUID runId) {
        List<RunEvent> events = runlane.template().runs().events(runId);
        assertThat(events)
                .filteredOn(event -> event.type() == RunEventType.RESUMED)
                .hasSize(1);
        int resumed = events.stream().map(RunEvent::type).toList().indexOf(RunEventType.RESUMED);
        return events.subList(resumed + 1, events.size()).stream()
                .map(RunEvent::type)
                .filter(type -> type != RunEventType.STEP_COMPLETED && type != RunEventType.SIGNAL_CONSUMED)
                .toList();
    }

    private RunStep step(UUID runId, String name) {
        return runlane.template().runs().steps(runId).stream()
                .filter(step -> step.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private Instant recordedInstant(UUID runId, String name) {
        String json = step(runId, name).resultJson();
        return Instant.parse(json.substring(1, json.length() - 1));
    }

    private Instant databaseNow() {
        return runlane.jdbc()
                .queryForObject("SELECT statement_timestamp()", java.sql.Timestamp.class)
                .toInstant();
    }

    private Map<String, Object> waitColumns(UUID runId) {
        return runlane.jdbc()
                .queryForMap(
                        "SELECT awaiting_run_id, awaiting_signal FROM " + runlane.schema() + ".runs WHERE id = ?",
                        runId);
    }

    @Test
    @DisplayName("S-RV-6: a run cancelled while sleeping resumes from the start, replays its recorded steps and waits"
            + " again until the wake-up time the sleep recorded, not a new one")
    void cancelledSleepKeepsItsWakeUpTime() {
        UUID runId = trigger("resumewait.sleeper", new Sleeper.Payload(3_000));
        runlane.startWorker();
        Run waiting = awaitStatus(runId, RunStatus.WAITING);
        Instant wakeAt = recordedInstant(runId, "nap");
        assertThat(waiting.runAt()).isEqualTo(wakeAt);
        runlane.template().runs().cancel(runId, "hold on");
        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.CANCELLED);

        runlane.template().runs().resume(runId);

        Run waitingAgain = await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> runlane.run(runId),
                        run -> run.status() == RunStatus.WAITING && count(runId, "execution") == 2);
        assertThat(waitingAgain.runAt()).isEqualTo(wakeAt);
        assertThat(recordedInstant(runId, "nap")).isEqualTo(wakeAt);
        Run succeeded = awaitStatus(runId, RunStatus.SUCCEEDED);
        assertThat(succeeded.resultJson()).isEqualTo("\"done\"");
        assertThat(count(runId, "before")).isEqualTo(1);
        assertThat(count(runId, "after")).isEqualTo(1);
        assertThat(count(runId, "execution")).isEqualTo(3);
        assertThat(eventsAfterResume(runId))
                .containsExactly(
                        RunEventType.CLAIMED, RunEventType.WAITING, RunEventType.CLAIMED, RunEventType.SUCCEEDED);
    }

    @Test
    @DisplayName("S-RV-6: a run cancelled while sleeping and resumed after its recorded wake-up time runs on at once,"
            + " once")
    void cancelledSleepPastItsWakeUpTimeRunsOn() {
        UUID runId = trigger("resumewait.sleeper", new Sleeper.Payload(500));
        runlane.startWorker();
        awaitStatus(runId, RunStatus.WAITING);
        runlane.template().runs().cancel(runId, "hold on");
        Instant wakeAt = recordedInstant(runId, "nap");
        await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow().isAfter(wakeAt));
        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.CANCELLED);

        runlane.template().runs().resume(runId);

        awaitStatus(runId, RunStatus.SUCCEEDED);
        assertThat(count(runId, "before")).isEqualTo(1);
        assertThat(count(runId, "after")).isEqualTo(1);
        assertThat(eventsAfterResume(runId)).containsExactly(RunEventType.CLAIMED, RunEventType.SUCCEEDED);
    }

    @Test
    @DisplayName("S-RV-6: a run cancelled while awaiting another run is not woken by that run's end; resumed, it"
            + " replays the step that triggered the child and answers with the child's result")
    void cancelledAwaitResultResumesWithTheChildsResult() {
        childGate = new CountDownLatch(1);
        UUID parent = trigger(
                "resumewait.parent", new Parent.Payload(0, Duration.ofHours(1).toMillis()));
        runlane.startWorker();
        awaitStatus(parent, RunStatus.WAITING);
        UUID child = UUID.fromString(step(parent, "spawn").resultJson().replace("\"", ""));
        assertThat(waitColumns(parent).get("awaiting_run_id")).isEqualTo(child);
        runlane.template().runs().cancel(parent, "hold on");
        childGate.countDown();
        awaitStatus(child, RunStatus.SUCCEEDED);
        Run cancelled = runlane.run(parent);
        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);

        Run resumed = runlane.template().runs().resume(parent);

        assertThat(resumed.status()).isIn(RunStatus.QUEUED, RunStatus.RUNNING);
        Run succeeded = awaitStatus(parent, RunStatus.SUCCEEDED);
        assertThat(succeeded.resultJson()).isEqualTo("\"child-answer\"");
        assertThat(count(parent, "spawn")).isEqualTo(1);
        assertThat(runlane.template()
                        .runs()
                        .list(RunQuery.builder().taskIds("resumewait.child").build())
                        .items())
                .extracting(Run::id)
                .containsExactly(child);
        assertThat(eventsAfterResume(parent)).containsExactly(RunEventType.CLAIMED, RunEventType.SUCCEEDED);
    }

    @Test
    @DisplayName("S-RV-6: a run that failed because its awaitResult timed out replays the recorded time-out when"
            + " resumed and fails again at once; a fork from the await's deadline step waits for the same child anew")
    void awaitTimeOutReplaysOnResumeAndForkWaitsAnew() {
        UUID parent = trigger(
                "resumewait.parent", new Parent.Payload(Duration.ofHours(1).toMillis(), 300));
        runlane.startWorker();
        Run failed = awaitStatus(parent, RunStatus.FAILED);
        assertThat(failed.failure().code()).isEqualTo("await_timeout");
        UUID child = UUID.fromString(step(parent, "spawn").resultJson().replace("\"", ""));
        RunStep outcome = step(parent, "awaitResult." + child);
        RunStep deadline = step(parent, "awaitResult." + child + ".deadline");

        runlane.template().runs().resume(parent);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(parent), run -> run.status() == RunStatus.FAILED && run.spentAttempts() == 1);
        Run failedAgain = runlane.run(parent);
        assertThat(failedAgain.failure().code()).isEqualTo("await_timeout");
        assertThat(eventsAfterResume(parent)).containsExactly(RunEventType.CLAIMED, RunEventType.FAILED);
        assertThat(step(parent, "awaitResult." + child)).isEqualTo(outcome);
        assertThat(step(parent, "awaitResult." + child + ".deadline")).isEqualTo(deadline);
        assertThat(count(parent, "spawn")).isEqualTo(1);

        Run fork = runlane.template().runs().fork(parent, "awaitResult." + child + ".deadline");

        awaitStatus(fork.id(), RunStatus.WAITING);
        assertThat(waitColumns(fork.id()).get("awaiting_run_id")).isEqualTo(child);
        assertThat(count(fork.id(), "spawn")).isZero();
    }

    @Test
    @DisplayName("S-RV-6: a run that failed because its awaitSignal timed out replays the time-out when resumed;"
            + " a signal sent meanwhile is refused and stores nothing")
    void awaitSignalTimeOutReplaysOnResume() {
        UUID runId = trigger("resumewait.gated", new Gated.Payload(300));
        runlane.startWorker();
        Run failed = awaitStatus(runId, RunStatus.FAILED);
        assertThat(failed.failure().message()).contains("no signal a");

        assertThatThrownBy(() -> runlane.template().signals().send(runId, "a", new Gated.Approval("ann")))
                .isInstanceOfSatisfying(
                        RunStateException.class, ex -> assertThat(ex.status()).isEqualTo(RunStatus.FAILED));
        assertThat(runlane.template().runs().signals(runId)).isEmpty();

        runlane.template().runs().resume(runId);

        // The resume committed QUEUED before it returned: the next FAILED is the resumed life's.
        awaitStatus(runId, RunStatus.FAILED);
        assertThat(runlane.run(runId).failure().message()).contains("no signal a");
        assertThat(eventsAfterResume(runId)).containsExactly(RunEventType.CLAIMED, RunEventType.FAILED);
    }

    @Test
    @DisplayName("S-RV-7: a signal the run received before it failed, and had not consumed, stays in its mailbox and"
            + " is consumed by awaitSignal after the resume; a send to the FAILED run is refused and stores nothing")
    void signalKeptThroughFailureIsConsumedAfterResume() {
        PREPARE_FAILS.set(true);
        UUID runId = trigger(
                "resumewait.gated", new Gated.Payload(Duration.ofHours(1).toMillis()));
        runlane.template().signals().send(runId, "a", new Gated.Approval("ann"));
        runlane.template().signals().send(runId, "b", new Gated.Approval("bob"), "b-1");
        runlane.startWorker();
        awaitStatus(runId, RunStatus.FAILED);
        assertThat(runlane.template().runs().signals(runId))
                .hasSize(2)
                .allSatisfy(signal -> assertThat(signal.consumedAt()).isNull());

        assertThatThrownBy(() -> runlane.template().signals().send(runId, "a", new Gated.Approval("late")))
                .isInstanceOf(RunStateException.class);
        assertThat(runlane.template().runs().signals(runId)).hasSize(2);
        PREPARE_FAILS.set(false);

        runlane.template().runs().resume(runId);

        Run succeeded = awaitStatus(runId, RunStatus.SUCCEEDED);
        assertThat(succeeded.resultJson()).isEqualTo("\"ann,bob\"");
        assertThat(runlane.template().runs().signals(runId))
                .hasSize(2)
                .allSatisfy(signal -> assertThat(signal.consumedAt()).isNotNull());
    }

    @Test
    @DisplayName("S-RV-6, S-RV-7: a run cancelled while awaiting a signal keeps its mailbox and its recorded"
            + " deadline: resumed, it waits again, without a stale wait left on the row, and a signal sent then wakes"
            + " it once")
    void cancelledAwaitSignalWaitsAgainWithItsMailbox() {
        UUID runId = trigger(
                "resumewait.gated", new Gated.Payload(Duration.ofHours(1).toMillis()));
        runlane.template().signals().send(runId, "b", new Gated.Approval("bob"), "b-1");
        runlane.startWorker();
        Run waiting = awaitStatus(runId, RunStatus.WAITING);
        Instant deadline = recordedInstant(runId, "awaitSignal.a.deadline");
        assertThat(waiting.runAt()).isEqualTo(deadline);
        runlane.template().runs().cancel(runId, "hold on");
        assertThatThrownBy(() -> runlane.template().signals().send(runId, "a", new Gated.Approval("ann")))
                .isInstanceOfSatisfying(
                        RunStateException.class, ex -> assertThat(ex.status()).isEqualTo(RunStatus.CANCELLED));

        Run resumed = runlane.template().runs().resume(runId);

        assertThat(resumed.status()).isIn(RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.WAITING);
        Run waitingAgain = await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> runlane.run(runId),
                        run -> run.status() == RunStatus.WAITING && count(runId, "execution") == 2);
        assertThat(waitingAgain.runAt()).isEqualTo(deadline);
        assertThat(waitColumns(runId).get("awaiting_signal")).isEqualTo("a");
        assertThat(runlane.template().signals().send(runId, "b", new Gated.Approval("bob again"), "b-1"))
                .isFalse();

        runlane.template().signals().send(runId, "a", new Gated.Approval("ann"));

        Run succeeded = awaitStatus(runId, RunStatus.SUCCEEDED);
        assertThat(succeeded.resultJson()).isEqualTo("\"ann,bob\"");
        assertThat(count(runId, "execution")).isEqualTo(3);
        assertThat(runlane.template().runs().signals(runId))
                .extracting(RunSignal::name)
                .containsExactly("b", "a");
        assertThat(eventsAfterResume(runId))
                .containsExactly(
                        RunEventType.CLAIMED, RunEventType.WAITING, RunEventType.CLAIMED, RunEventType.SUCCEEDED);
    }

    @Test
    @DisplayName("S-RV-6: a resume clears the wait the cancelled run was registered for, so no wake-up source"
            + " touches the queued run")
    void resumeClearsTheStaleWait() {
        UUID runId = trigger(
                "resumewait.gated", new Gated.Payload(Duration.ofHours(1).toMillis()));
        runlane.startWorker();
        awaitStatus(runId, RunStatus.WAITING);
        runlane.stop();
        runlane.template().runs().cancel(runId, "hold on");
        assertThat(waitColumns(runId).get("awaiting_signal")).isEqualTo("a");

        Run resumed = runlane.template().runs().resume(runId);

        assertThat(resumed.status()).isEqualTo(RunStatus.QUEUED);
        Map<String, Object> wait = waitColumns(runId);
        assertThat(wait.get("awaiting_signal")).isNull();
        assertThat(wait.get("awaiting_run_id")).isNull();
        assertThat(Optional.ofNullable(resumed.runAt())).isPresent();
    }
}

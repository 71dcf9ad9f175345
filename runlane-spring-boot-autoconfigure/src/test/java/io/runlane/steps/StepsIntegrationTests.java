package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.step.AttemptFencedOut;
import io.runlane.internal.step.AttemptSteps;
import io.runlane.internal.step.StepIds;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Durable steps (S-ST-1..6): memoized, fenced by the claim, replayed across attempts and instances. */
@RunlaneDatabaseTest
class StepsIntegrationTests {

    /** Calls to step functions, by "<run id>/<step>". */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** Step ids seen by step functions, by "<run id>/<step>". */
    static final Map<String, List<String>> STEP_IDS = new ConcurrentHashMap<>();

    static int called(UUID runId, String step) {
        return CALLS.getOrDefault(runId + "/" + step, new AtomicInteger()).get();
    }

    static void count(io.runlane.StepContext step) {
        CALLS.computeIfAbsent(step.runId() + "/" + step.name(), key -> new AtomicInteger())
                .incrementAndGet();
        STEP_IDS.computeIfAbsent(step.runId() + "/" + step.name(), key -> new CopyOnWriteArrayList<>())
                .add(step.stepId());
    }

    /** Charges once, then ships; shipping fails on the first two attempts. */
    @Task(id = "steps.checkout")
    public static class Checkout implements TaskHandler<Checkout.Payload> {

        public record Payload(String order) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            String charge = context.step("charge", String.class, step -> {
                count(step);
                return "ch_" + payload.order();
            });
            context.step("ship", step -> {
                count(step);
                if (context.attempt() < 3) {
                    throw new IllegalStateException("carrier down for " + charge);
                }
            });
        }
    }

    /** Records a step, then its first attempt never comes back (the test kills it); later attempts go on. */
    @Task(id = "steps.twoSteps")
    public static class TwoSteps implements TaskHandler<TwoSteps.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.step("first", Integer.class, step -> {
                count(step);
                return 1;
            });
            context.step("second", Integer.class, step -> {
                count(step);
                return 2;
            });
        }
    }

    /** The same step name in a loop. */
    @Task(id = "steps.loop")
    public static class Loop implements TaskHandler<Loop.Payload> {

        public record Payload(int items) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            for (int i = 0; i < payload.items(); i++) {
                int item = i;
                context.step("item", Integer.class, step -> {
                    count(step);
                    return item;
                });
            }
        }
    }

    /** Records a text, then fails; the next attempt asks for the same step as a number. */
    @Task(id = "steps.changed")
    public static class Changed implements TaskHandler<Changed.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            if (context.attempt() == 1) {
                context.step("value", String.class, step -> "not a number");
                throw new IllegalStateException("fail after the step");
            }
            context.step("value", Integer.class, step -> 42);
        }
    }

    /** Misuses steps in every way the contract forbids and records what each misuse threw. */
    @Task(id = "steps.misuse")
    public static class Misuse implements TaskHandler<Misuse.Payload> {

        public record Payload(String id) {}

        static final Map<String, Throwable> THROWN = new ConcurrentHashMap<>();

        static volatile RunContext leaked;

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            leaked = context;
            record("colon", () -> context.step("a:b", String.class, step -> "x"));
            record("empty", () -> context.step("", String.class, step -> "x"));
            record("nullType", () -> context.step("ok", null, step -> "x"));
            record(
                    "nested",
                    () -> context.step("outer", String.class, step -> {
                        context.step("inner", inner -> {});
                        return "x";
                    }));
            Thread other = new Thread(() -> record("otherThread", () -> context.step("other", step -> {})));
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

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("steps") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(Duration.ofMillis(1500), Duration.ofMillis(300))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withRecoveryInterval(Duration.ofMillis(200)),
                io.runlane.internal.kernel.EngineListener.NONE,
                new Checkout(),
                new TwoSteps(),
                new Loop(),
                new Changed(),
                new Misuse());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private Run awaitStatus(TestRunlane instance, UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> instance.run(runId), run -> run.status() == status);
    }

    @Test
    @DisplayName("S-ST-1, S-ST-2, S-ST-4, S-ST-6: a later step fails twice; the earlier one ran once, the later"
            + " three times with one step id")
    void laterStepFailingTwiceDoesNotRepeatTheEarlierOne() {
        UUID first = runlane.template()
                .trigger("steps.checkout", new Checkout.Payload("o-1"))
                .runId();
        UUID second = runlane.template()
                .trigger("steps.checkout", new Checkout.Payload("o-2"))
                .runId();
        runlane.startWorker();

        awaitStatus(runlane, first, RunStatus.SUCCEEDED);
        awaitStatus(runlane, second, RunStatus.SUCCEEDED);

        assertThat(called(first, "charge")).isEqualTo(1);
        assertThat(called(first, "ship")).isEqualTo(3);
        assertThat(STEP_IDS.get(first + "/ship")).hasSize(3).containsOnly(StepIds.stepId(first, "ship", 1));
        List<RunStep> steps = runlane.template().runs().steps(first);
        assertThat(steps).extracting(RunStep::name).containsExactly("charge", "ship");
        assertThat(steps).extracting(RunStep::occurrence).containsExactly(1, 1);
        assertThat(steps.get(0).resultJson()).isEqualTo("\"ch_o-1\"");
        assertThat(steps.get(1).resultJson()).isNull();
        assertThat(steps)
                .allSatisfy(
                        step -> assertThat(KeyRules.violation(step.stepId())).isNull());
        List<String> otherRunsIds = runlane.template().runs().steps(second).stream()
                .map(RunStep::stepId)
                .toList();
        assertThat(otherRunsIds)
                .doesNotContainAnyElementsOf(steps.stream().map(RunStep::stepId).toList());
        assertThat(runlane.template().runs().events(first))
                .filteredOn(event -> event.type() == RunEventType.STEP_COMPLETED)
                .extracting(RunEvent::detail)
                .containsExactly("charge #1", "ship #1");
        assertThat(runlane.template().runs().attempts(first)).hasSize(3);
    }

    @Test
    @DisplayName("S-ST-1: an attempt killed between two steps is recovered by another instance, which does not"
            + " repeat the completed step")
    void recoveredAttemptDoesNotRepeatACompletedStep(@Pool(size = 8) HikariDataSource otherDataSource)
            throws Exception {
        UUID runId = runlane.template()
                .trigger("steps.twoSteps", new TwoSteps.Payload("a"))
                .runId();
        ClaimedRun dead = claimAsDeadWorker(runId, "steps.twoSteps");
        AttemptSteps steps = runlane.engine().durable().open(dead, "dead-worker");
        steps.handlerStarted();
        assertThat(steps.step("first", Integer.class, step -> {
                    count(step);
                    return 1;
                }))
                .isEqualTo(1);
        // The worker dies here: no heartbeat, no outcome.

        TestRunlane other = runlane.instanceOn(otherDataSource);
        try {
            other.startMaintenance().startWorker();
            awaitStatus(other, runId, RunStatus.SUCCEEDED);
        } finally {
            other.stop();
        }
        assertThat(called(runId, "first")).isEqualTo(1);
        assertThat(called(runId, "second")).isEqualTo(1);
        assertThat(runlane.template().runs().steps(runId))
                .extracting(RunStep::name)
                .containsExactly("first", "second");
        assertThat(runlane.run(runId).failure())
                .isNotNull()
                .satisfies(failure -> assertThat(failure.code()).isEqualTo("lease_expired"));
    }

    @Test
    @DisplayName("S-ST-3: a zombie attempt (its lease taken over) cannot record a step, and its attempt ends")
    void zombieAttemptCannotRecordAStep() throws Exception {
        UUID runId = runlane.template()
                .trigger("steps.twoSteps", new TwoSteps.Payload("z"))
                .runId();
        ClaimedRun zombie = claimAsDeadWorker(runId, "steps.twoSteps");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);
        ClaimedRun current = claimAsDeadWorker(runId, "steps.twoSteps");
        assertThat(current.fencingToken()).isGreaterThan(zombie.fencingToken());

        AttemptSteps zombieSteps = runlane.engine().durable().open(zombie, "zombie");
        zombieSteps.handlerStarted();
        assertThatThrownBy(() -> zombieSteps.step("first", Integer.class, step -> 1))
                .isInstanceOf(AttemptFencedOut.class);
        assertThat(zombieSteps.fencedOut()).isTrue();
        assertThat(runlane.template().runs().steps(runId)).isEmpty();
        assertThat(runlane.template().runs().events(runId))
                .noneMatch(event -> event.type() == RunEventType.STEP_COMPLETED);

        AttemptSteps currentSteps = runlane.engine().durable().open(current, "current");
        currentSteps.handlerStarted();
        assertThat(currentSteps.step("first", Integer.class, step -> 7)).isEqualTo(7);
        assertThat(runlane.template().runs().steps(runId))
                .singleElement()
                .satisfies(step -> assertThat(step.resultJson()).isEqualTo("7"));
    }

    @Test
    @DisplayName("Finding: concurrent recordings of one step: exactly one wins, and only the winner appends an event"
            + " (S-ST-3, S-RL-2)")
    void concurrentRecordingsOfOneStepHaveOneWinner() {
        for (int round = 0; round < 5; round++) {
            UUID runId = runlane.template()
                    .trigger("steps.twoSteps", new TwoSteps.Payload("c" + round))
                    .runId();
            ClaimedRun claimed = claimAsDeadWorker(runId, "steps.twoSteps");
            String stepId = StepIds.stepId(runId, "first", 1);
            List<Concurrently.Outcome<Boolean>> outcomes = Concurrently.run(
                    16,
                    i -> () -> runlane.engine()
                            .steps()
                            .recordIfHeld(runId, claimed.fencingToken(), "w" + i, "first", 1, stepId, "" + i));

            assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
            assertThat(outcomes).filteredOn(Concurrently.Outcome::value).hasSize(1);
            assertThat(runlane.template().runs().steps(runId)).hasSize(1);
            assertThat(runlane.template().runs().events(runId))
                    .as("one event, no gap in the sequence")
                    .extracting(RunEvent::type, RunEvent::sequence)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(RunEventType.CREATED, 1),
                            org.assertj.core.groups.Tuple.tuple(RunEventType.CLAIMED, 2),
                            org.assertj.core.groups.Tuple.tuple(RunEventType.STEP_COMPLETED, 3));
            runlane.finish(runId, RunStatus.CANCELLED);
        }
    }

    @Test
    @DisplayName("S-ST-2: repeated step names in a loop get occurrences 1..n with distinct step ids")
    void repeatedNamesGetOccurrences() {
        UUID runId =
                runlane.template().trigger("steps.loop", new Loop.Payload(4)).runId();
        runlane.startWorker();
        awaitStatus(runlane, runId, RunStatus.SUCCEEDED);

        List<RunStep> steps = runlane.template().runs().steps(runId);
        assertThat(steps).extracting(RunStep::occurrence).containsExactly(1, 2, 3, 4);
        assertThat(steps).extracting(RunStep::resultJson).containsExactly("0", "1", "2", "3");
        assertThat(steps).extracting(RunStep::stepId).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("S-ST-4: a recorded result that no longer converts fails the run at once with"
            + " step_result_incompatible")
    void incompatibleRecordedResultFailsTheRun() {
        UUID runId = runlane.template()
                .trigger("steps.changed", new Changed.Payload("x"))
                .runId();
        runlane.startWorker();

        Run failed = awaitStatus(runlane, runId, RunStatus.FAILED);
        assertThat(failed.failure().code()).isEqualTo("step_result_incompatible");
        assertThat(failed.attempts()).as("failed at once, budget left").isEqualTo(2);
    }

    @Test
    @DisplayName("S-ST-5: invalid names, a null type, a nested step, another thread and a call after the handler"
            + " returned are refused and record nothing")
    void misusedStepsAreRefused() {
        UUID runId = runlane.template()
                .trigger("steps.misuse", new Misuse.Payload("m"))
                .runId();
        runlane.startWorker();
        awaitStatus(runlane, runId, RunStatus.SUCCEEDED);

        assertThat(Misuse.THROWN.get("colon"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("name");
        assertThat(Misuse.THROWN.get("empty")).isInstanceOf(InvalidKeyException.class);
        assertThat(Misuse.THROWN.get("nullType")).isInstanceOf(NullPointerException.class);
        assertThat(Misuse.THROWN.get("nested")).isInstanceOf(IllegalStateException.class);
        assertThat(Misuse.THROWN.get("otherThread"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("thread");
        assertThatThrownBy(() -> Misuse.leaked.step("late", step -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after the handler returned");
        assertThat(runlane.template().runs().steps(runId)).isEmpty();
    }

    /** Claims a run the way a worker would and then never heartbeats: a frozen or killed worker. */
    private ClaimedRun claimAsDeadWorker(UUID runId, String taskId) {
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("dead-worker", List.of("default"), List.of(taskId), 1, Duration.ofMillis(300));
        assertThat(claimed)
                .singleElement()
                .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));
        return claimed.get(0);
    }
}

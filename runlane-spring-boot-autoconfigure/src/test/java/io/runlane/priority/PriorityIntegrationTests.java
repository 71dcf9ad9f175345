package io.runlane.priority;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** S-PR-1..3: a run's priority orders the claims of its queue, within limits and keys. */
class PriorityIntegrationTests {

    private static final String LIMITED = "limited";

    /** The labels of the runs in the order their handlers started. */
    static final List<String> STARTED = new CopyOnWriteArrayList<>();

    /** Records its label; its concurrency key is the payload's. */
    @Task(id = "priority.work")
    public static class Work implements TaskHandler<Work.Payload> {

        public record Payload(String label, @Nullable String key) {}

        @Override
        public @Nullable String concurrencyKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    /** The same work, urgent by declaration. */
    @Task(id = "priority.urgent", priority = 50)
    public static class Urgent implements TaskHandler<Work.Payload> {

        @Override
        public void run(Work.Payload payload, RunContext context) {
            STARTED.add(payload.label());
        }
    }

    @Task(id = "priority.tooHigh", priority = 101)
    public static class TooHigh implements TaskHandler<Work.Payload> {

        @Override
        public void run(Work.Payload payload, RunContext context) {}
    }

    private final List<HikariDataSource> pools = new ArrayList<>();

    private final List<TestRunlane> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        instances.forEach(TestRunlane::stop);
        pools.forEach(HikariDataSource::close);
        STARTED.clear();
    }

    /** One instance with one worker slot, on a queue limited to one run at a time per key when {@code limited}. */
    private TestRunlane oneSlot(String owner, boolean limited) {
        HikariDataSource pool = TestDatabase.newDataSource(8);
        pools.add(pool);
        ExecutionSettings execution = ExecutionSettings.defaults().withWorker(1, Duration.ofMillis(50));
        if (limited) {
            execution = execution.withConcurrencyLimits(Map.of(LIMITED, 1));
        }
        TestRunlane runlane = TestRunlane.withExecution(
                pool,
                TestDatabase.freshSchema(pool, owner),
                settings -> settings.withQueues(Set.of(LIMITED)),
                execution,
                EngineListener.NONE,
                new Work(),
                new Urgent());
        instances.add(runlane);
        return runlane;
    }

    private static Run trigger(TestRunlane runlane, String label, @Nullable Integer priority, @Nullable String key) {
        TriggerOptions.Builder options = TriggerOptions.builder().queue(LIMITED);
        if (priority != null) {
            options.priority(priority);
        }
        return runlane.template()
                .trigger("priority.work", new Work.Payload(label, key), options.build())
                .run();
    }

    private static void awaitAll(TestRunlane runlane, List<Run> runs) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> runs.stream().allMatch(run -> runlane.run(run.id()).status() == RunStatus.SUCCEEDED));
    }

    @ParameterizedTest(name = "concurrency limit: {0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("S-PR-2: one slot starts the due runs highest priority first, equal priorities oldest due first")
    void higherPrioritiesStartFirst(boolean limited) {
        TestRunlane runlane = oneSlot("priority_order", limited);
        List<Run> runs = List.of(
                trigger(runlane, "p0", null, null),
                trigger(runlane, "p5-a", 5, null),
                trigger(runlane, "p-3", -3, null),
                trigger(runlane, "p5-b", 5, null),
                trigger(runlane, "p100", 100, null),
                trigger(runlane, "p-100", -100, null));

        runlane.startWorker();
        awaitAll(runlane, runs);

        assertThat(STARTED).containsExactly("p100", "p5-a", "p5-b", "p0", "p-3", "p-100");
    }

    @Test
    @DisplayName("S-PR-1, S-PR-3: a run shows its priority: the trigger's, else the task's, else 0")
    void runsShowTheirPriority() {
        TestRunlane runlane = oneSlot("priority_shown", false);

        Run plain = trigger(runlane, "plain", null, null);
        Run urgentByOptions = trigger(runlane, "options", 7, null);
        Run urgentByTask = runlane.template()
                .trigger("priority.urgent", new Work.Payload("task", null))
                .run();
        Run overridden = runlane.template()
                .trigger(
                        "priority.urgent",
                        new Work.Payload("task", null),
                        TriggerOptions.builder().priority(-1).build())
                .run();

        assertThat(plain.priority()).isZero();
        assertThat(urgentByOptions.priority()).isEqualTo(7);
        assertThat(urgentByTask.priority()).isEqualTo(50);
        assertThat(overridden.priority()).isEqualTo(-1);
        assertThat(runlane.template().runs().get(urgentByOptions.id()))
                .map(Run::priority)
                .contains(7);
    }

    @Test
    @DisplayName("S-PR-3: reruns and retries keep their source's priority unless the options name another")
    void derivedRunsKeepThePriority() {
        TestRunlane runlane = oneSlot("priority_derived", false);
        Run source = runlane.finish(trigger(runlane, "source", 9, null).id(), RunStatus.FAILED);

        Run rerun = runlane.template().runs().rerun(source.id());
        Run retry = runlane.template().runs().retry(source.id());
        Run lowered = runlane.template()
                .runs()
                .retry(source.id(), TriggerOptions.builder().priority(-9).build());

        assertThat(rerun.priority()).isEqualTo(9);
        assertThat(retry.priority()).isEqualTo(9);
        assertThat(lowered.priority()).isEqualTo(-9);
    }

    @Test
    @DisplayName("S-PR-1: a priority out of -100..100 fails the trigger naming the field, and nothing is written")
    void priorityOutOfRangeIsRefused() {
        TestRunlane runlane = oneSlot("priority_range", false);

        assertThatThrownBy(() -> trigger(runlane, "high", 101, null))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.getMessage()).contains("priority").contains("101"));
        assertThatThrownBy(() -> runlane.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("priority.work", new Work.Payload("ok", null)),
                                TriggerRequest.of(
                                        "priority.work",
                                        new Work.Payload("low", null),
                                        TriggerOptions.builder().priority(-101).build()))))
                .isInstanceOf(ConfigurationInvalidException.class);

        assertThat(runlane.rowCounts().runs()).isZero();
    }

    @Test
    @DisplayName("S-PR-1: a task declaring a priority out of range is refused at declaration")
    void declarationOutOfRangeIsRefused() {
        TaskDefinitionReader reader = new TaskDefinitionReader(RunlaneSettings.defaults("runlane"));

        assertThatThrownBy(() -> reader.read(new TooHigh()))
                .isInstanceOfSatisfying(
                        TaskDeclarationException.class,
                        ex -> assertThat(ex.getMessage()).contains("priority").contains("101"));
    }

    @Test
    @DisplayName("S-PR-2, S-QC-2: priority never overrides a concurrency limit; within a key it orders the claims")
    void priorityWithinConcurrencyKeys() {
        TestRunlane runlane = oneSlot("priority_keys", true);
        List<Run> runs = List.of(
                trigger(runlane, "a-low", -5, "a"),
                trigger(runlane, "b-low", -5, "b"),
                trigger(runlane, "a-high", 20, "a"),
                trigger(runlane, "b-mid", 0, "b"));

        runlane.startWorker();
        awaitAll(runlane, runs);

        assertThat(STARTED).containsExactly("a-high", "b-mid", "a-low", "b-low");
    }

    @Test
    @DisplayName("S-PR-2: runs of seeded random priorities start in priority order, then trigger order")
    void seededRandomPrioritiesStartInOrder() {
        TestRunlane runlane = oneSlot("priority_random", false);
        Random random = new Random(20261202L);
        List<Run> runs = new ArrayList<>();
        List<int[]> order = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int priority = random.nextInt(7) - 3;
            runs.add(trigger(runlane, priority + "/" + i, priority, null));
            order.add(new int[] {priority, i});
        }
        order.sort((x, y) -> x[0] != y[0] ? Integer.compare(y[0], x[0]) : Integer.compare(x[1], y[1]));
        List<String> expected =
                order.stream().map(entry -> entry[0] + "/" + entry[1]).toList();

        runlane.startWorker();
        awaitAll(runlane, runs);

        assertThat(STARTED).containsExactlyElementsOf(expected);
    }
}

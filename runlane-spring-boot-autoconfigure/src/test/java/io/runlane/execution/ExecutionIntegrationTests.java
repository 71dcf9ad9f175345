package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
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
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs execute through a real worker: outcomes, context, events and ownership release (S-EX, S-IK-3..5, S-SK-1). */
@RunlaneDatabaseTest
class ExecutionIntegrationTests {

    /** What each attempt saw, by run id. */
    static final Map<UUID, List<String>> SEEN = new ConcurrentHashMap<>();

    /** A task whose payload says how the attempt ends: ok, fail, or release until the Nth attempt. */
    @Task(id = "exec.scripted", idempotencyKeyTtl = "1h")
    public static class Scripted implements TaskHandler<Scripted.Payload> {

        public record Payload(String key, String outcome, String singleton) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.key();
        }

        @Override
        public String singletonKey(Payload payload) {
            return payload.singleton();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            SEEN.computeIfAbsent(context.runId(), id -> new CopyOnWriteArrayList<>())
                    .add(context.taskId() + "#" + context.attempt() + ":" + payload.outcome());
            switch (payload.outcome()) {
                case "fail" -> throw new IllegalStateException("scripted failure");
                case "release-once" -> {
                    if (context.attempt() == 1) {
                        context.release(Duration.ZERO, "not ready");
                    }
                }
                default -> {}
            }
        }
    }

    @Pool(size = 16)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("execution") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults()
                                .withWorker(4, Duration.ofMillis(200))
                                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(20)),
                        EngineListener.NONE,
                        new Scripted())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static TriggerResult trigger(String outcome, String singleton) {
        return runlane.template()
                .trigger("exec.scripted", new Scripted.Payload("k-" + UUID.randomUUID(), outcome, singleton));
    }

    private static RunStatus awaitTerminal(UUID runId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> runlane.run(runId).status(), RunStatus::isTerminal);
    }

    @Test
    @DisplayName("S-EX-1, S-EX-9, S-RL-2: a run executes once with its context and records its history")
    void runExecutesWithItsContextAndHistory() {
        TriggerResult result = trigger("ok", null);

        assertThat(awaitTerminal(result.runId())).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(SEEN.get(result.runId())).containsExactly("exec.scripted#1:ok");
        assertThat(runlane.template().runs().events(result.runId()))
                .extracting(RunEvent::type)
                .containsExactly(RunEventType.CREATED, RunEventType.CLAIMED, RunEventType.SUCCEEDED);
        assertThat(runlane.template().runs().events(result.runId()))
                .extracting(RunEvent::sequence)
                .containsExactly(1, 2, 3);
        assertThat(runlane.run(result.runId()).attempts()).isOne();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ok", "fail"})
    @DisplayName("S-IK-3, S-IK-4, S-SK-1: real execution retains a succeeded owner and releases a failed one")
    void executionAppliesOwnershipRules(String outcome) {
        String singleton = "s-" + UUID.randomUUID();
        TriggerResult result = trigger(outcome, singleton);
        RunStatus terminal = awaitTerminal(result.runId());
        Scripted.Payload again = new Scripted.Payload(result.run().idempotencyKey(), outcome, singleton);

        TriggerResult otherIdentity = runlane.template()
                .trigger(
                        "exec.scripted",
                        again,
                        TriggerOptions.builder()
                                .idempotencyKey("other-" + UUID.randomUUID())
                                .build());
        assertThat(otherIdentity.created()).as("the singleton was released").isTrue();
        awaitTerminal(otherIdentity.runId());
        TriggerResult next = runlane.template().trigger("exec.scripted", again);

        if (outcome.equals("ok")) {
            assertThat(terminal).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(next.created()).as("retained for 1h").isFalse();
            assertThat(next.runId()).isEqualTo(result.runId());
        } else {
            assertThat(terminal).isEqualTo(RunStatus.FAILED);
            assertThat(SEEN.get(result.runId())).hasSize(3);
            assertThat(next.created()).as("a failed owner releases the key").isTrue();
        }
    }

    @Test
    @DisplayName("S-EX-6: a release keeps the run id and the retry budget")
    void releaseKeepsRunIdAndBudget() {
        TriggerResult result = trigger("release-once", null);

        assertThat(awaitTerminal(result.runId())).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(SEEN.get(result.runId()))
                .containsExactly("exec.scripted#1:release-once", "exec.scripted#2:release-once");
        assertThat(runlane.template().runs().events(result.runId()))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.RELEASED,
                        RunEventType.CLAIMED,
                        RunEventType.SUCCEEDED);
        assertThat(runlane.template().runs().events(result.runId()).get(2).detail())
                .isEqualTo("not ready");
    }
}

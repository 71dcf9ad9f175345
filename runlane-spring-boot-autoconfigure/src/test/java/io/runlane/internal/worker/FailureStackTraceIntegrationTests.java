package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-35: a failure caused by an exception is stored with its bounded stack trace; other failures with none. */
@RunlaneDatabaseTest
class FailureStackTraceIntegrationTests {

    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** Fails as its payload says; {@code flaky} fails its first attempt only. */
    @Task(id = "stack.failing", maxAttempts = 2)
    public static class Failing implements TaskHandler<Failing.Payload> {

        public record Payload(String key, String failure) {}

        @Override
        public void run(Payload payload, RunContext context) {
            int call = CALLS.computeIfAbsent(payload.key(), key -> new AtomicInteger())
                    .incrementAndGet();
            switch (payload.failure()) {
                case "chain" ->
                    throw new IllegalStateException(
                            "outer \0 failure",
                            new UncheckedIOException(
                                    "middle", new java.io.IOException("root cause of " + payload.key())));
                case "deep" -> recurse(3000, payload.key());
                case "huge" -> throw new IllegalArgumentException("x" + "\uD83D\uDE00".repeat(20_000));
                case "flaky" -> {
                    if (call == 1) {
                        throw new IllegalStateException("first attempt of " + payload.key());
                    }
                }
                default -> throw new IllegalStateException("unknown failure " + payload.failure());
            }
        }

        private static void recurse(int depth, String key) {
            if (depth == 0) {
                throw new IllegalStateException("deep", new IllegalArgumentException("deep root of " + key));
            }
            recurse(depth - 1, key);
        }
    }

    /** Served by no worker: the test claims and ends its attempts itself. */
    @Task(id = "stack.manual", queue = "stack-manual", maxAttempts = 3)
    public static class Manual implements TaskHandler<Manual.Payload> {

        public record Payload(String key) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** As {@link Manual}, on a queue of its own, so that its runs never meet those of the other test. */
    @Task(id = "stack.resumable", queue = "stack-resumable", maxAttempts = 1)
    public static class Resumable extends Manual {}

    @Pool(size = 12)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("failure_stack") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        settings -> settings.withQueues(Set.of("stack-manual", "stack-resumable")),
                        ExecutionSettings.defaults()
                                .withWorker(4, Duration.ofMillis(50))
                                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                                .withQueues(Set.of("default")),
                        EngineListener.NONE,
                        new Failing(),
                        new Manual(),
                        new Resumable())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static UUID trigger(String key, String failure) {
        return runlane.template()
                .trigger("stack.failing", new Failing.Payload(key, failure))
                .runId();
    }

    private static Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    private static @Nullable String storedStack(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT failure_stack FROM " + runlane.schema() + ".runs WHERE id = ?", String.class, runId);
    }

    @Test
    @DisplayName("S-EX-35: a failed run stores the exception's stack trace with its frames and its cause chain")
    void failedRunStoresTheStackTraceWithItsCauses() {
        String key = "chain-" + UUID.randomUUID();
        Run failed = awaitStatus(trigger(key, "chain"), RunStatus.FAILED);

        String stack = storedStack(failed.id());
        assertThat(stack)
                .startsWith("java.lang.IllegalStateException: outer \uFFFD failure\n")
                .contains("\tat " + Failing.class.getName() + ".run(")
                .contains("Caused by: java.io.UncheckedIOException: middle")
                .contains("Caused by: java.io.IOException: root cause of " + key)
                .doesNotContain("\0", BoundedStackTrace.TRUNCATED);
        assertThat(stack.length()).isLessThanOrEqualTo(BoundedStackTrace.MAX_LENGTH);
        assertThat(failed.failure().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(runlane.engine().reads().failureStack(failed)).isEqualTo(stack);
    }

    @Test
    @DisplayName("S-EX-35: a deep stack keeps 32 frames per exception and its causes; a huge one is cut at 8,192 chars")
    void deepAndHugeStackTracesAreCapped() {
        String key = "deep-" + UUID.randomUUID();
        String deep =
                storedStack(awaitStatus(trigger(key, "deep"), RunStatus.FAILED).id());
        assertThat(deep.length()).isLessThanOrEqualTo(BoundedStackTrace.MAX_LENGTH);
        assertThat(deep)
                .startsWith("java.lang.IllegalStateException: deep\n")
                .containsPattern("\n\t\\.\\.\\. \\d+ frames omitted\n")
                .contains("Caused by: java.lang.IllegalArgumentException: deep root of " + key)
                .doesNotContain(BoundedStackTrace.TRUNCATED);
        assertThat(deep.lines().filter(line -> line.startsWith("\tat ")).count())
                .as("the outer exception's first frames; its cause shares all of them")
                .isEqualTo((long) BoundedStackTrace.MAX_FRAMES);

        String huge = storedStack(awaitStatus(trigger("huge-" + UUID.randomUUID(), "huge"), RunStatus.FAILED)
                .id());
        assertThat(huge)
                .hasSize(BoundedStackTrace.MAX_LENGTH - 1)
                .startsWith("java.lang.IllegalArgumentException: x\uD83D\uDE00")
                .endsWith("\uD83D\uDE00" + BoundedStackTrace.TRUNCATED);
    }

    @Test
    @DisplayName("S-EX-35, S-EX-15: a run retried after a failure and completed in a batch keeps that failure's stack")
    void batchedCompletionsKeepTheStackOfTheLastFailure() {
        List<UUID> runIds = IntStream.range(0, 40)
                .mapToObj(i -> trigger("flaky-" + i + "-" + UUID.randomUUID(), "flaky"))
                .toList();

        for (UUID runId : runIds) {
            Run succeeded = awaitStatus(runId, RunStatus.SUCCEEDED);
            String key = runlane.jdbc()
                    .queryForObject(
                            "SELECT payload->>'key' FROM " + runlane.schema() + ".runs WHERE id = ?",
                            String.class,
                            runId);
            assertThat(succeeded.failure().message()).isEqualTo("first attempt of " + key);
            assertThat(runlane.engine().reads().failureStack(succeeded))
                    .as("the stack of the run's own last failure, not another run's")
                    .startsWith("java.lang.IllegalStateException: first attempt of " + key + "\n")
                    .isEqualTo(storedStack(runId));
        }
    }

    @Test
    @DisplayName("S-EX-35, S-EX-7: a lease_expired failure replaces an earlier exception's stack trace with none")
    void leaseExpiredFailureStoresNoStackTrace() {
        UUID runId = runlane.template()
                .trigger("stack.manual", new Manual.Payload("lease"))
                .runId();
        ClaimedRun first = claim("stack.manual", "w1", Duration.ofMinutes(1));
        String stack = BoundedStackTrace.of(new IllegalStateException("handler broke"));
        RunFailure failure = new RunFailure("exception", IllegalStateException.class.getName(), "handler broke");
        assertThat(runlane.engine()
                        .outcomes()
                        .failIfHeld(runId, first.fencingToken(), "w1", failure, stack, Duration.ZERO))
                .hasValueSatisfying(run -> assertThat(run.status()).isEqualTo(RunStatus.RETRYING));
        assertThat(storedStack(runId)).isEqualTo(stack).startsWith("java.lang.IllegalStateException: handler broke");

        claim("stack.manual", "dead-worker", Duration.ofMillis(1));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);

        Run recovered = runlane.run(runId);
        assertThat(recovered.failure().code()).isEqualTo("lease_expired");
        assertThat(storedStack(runId)).isNull();
        assertThat(runlane.engine().reads().failureStack(recovered)).isNull();
    }

    @Test
    @DisplayName("S-EX-35, S-RV-1: resuming a failed run clears its stack trace with its failure")
    void resumeClearsTheStackTrace() {
        UUID runId = runlane.template()
                .trigger("stack.resumable", new Manual.Payload("resume"))
                .runId();
        ClaimedRun claimed = claim("stack.resumable", "w1", Duration.ofMinutes(1));
        RunFailure failure = new RunFailure("exception", IllegalStateException.class.getName(), "for good");
        runlane.engine()
                .outcomes()
                .failIfHeld(
                        runId,
                        claimed.fencingToken(),
                        "w1",
                        failure,
                        BoundedStackTrace.of(new IllegalStateException("for good")),
                        null);
        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.FAILED);
        assertThat(storedStack(runId)).startsWith("java.lang.IllegalStateException: for good");

        Run resumed = runlane.template().runs().resume(runId);

        assertThat(resumed.failure()).isNull();
        assertThat(storedStack(runId)).isNull();
    }

    private static ClaimedRun claim(String taskId, String worker, Duration lease) {
        List<ClaimedRun> claimed = await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> runlane.engine()
                                .claims()
                                .claimDue(
                                        worker, List.of("stack-manual", "stack-resumable"), List.of(taskId), 1, lease),
                        runs -> !runs.isEmpty());
        return claimed.get(0);
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.NonRetryableException;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import jakarta.validation.constraints.NotBlank;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Retries, backoff, failures and releases through a real worker (S-EX-4, S-EX-5, S-EX-6, S-ID-4). */
@RunlaneDatabaseTest
class RetryIntegrationTests {

    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    private static int call(String key) {
        return CALLS.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Fails with the exception its payload names, every time. */
    @Task(id = "retry.failing", maxAttempts = 4)
    public static class Failing implements TaskHandler<Failing.Payload> {

        public record Payload(@NotBlank String key, String failure) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            call(payload.key());
            throw switch (payload.failure()) {
                case "non-retryable" -> new NonRetryableException("permanently broken");
                case "listed" -> new UnsupportedOperationException("listed as not retryable");
                case "long" -> new IllegalStateException("x".repeat(5000));
                default -> new IllegalStateException("try again");
            };
        }
    }

    /** Declares a fixed backoff and a type that is never retried. */
    @Task(id = "retry.fixed", maxAttempts = 3, backoff = "1h", noRetryFor = UnsupportedOperationException.class)
    public static class FixedBackoff extends Failing {}

    /** Releases twice, then succeeds; its budget is one attempt, which releases must not spend. */
    @Task(id = "retry.releasing", maxAttempts = 1)
    public static class Releasing implements TaskHandler<Releasing.Payload> {

        public record Payload(String key) {}

        @Override
        public void run(Payload payload, RunContext context) {
            if (call(payload.key()) <= 2) {
                context.release(Duration.ofMillis(1), "waiting for upstream");
            }
        }
    }

    @Pool(size = 12)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("retry") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults()
                                .withWorker(4, Duration.ofMillis(100))
                                .withBackoff(Duration.ofHours(1), Duration.ofHours(3))
                                .withMaxFailureMessageLength(50),
                        EngineListener.NONE,
                        new Failing(),
                        new FixedBackoff(),
                        new Releasing())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static UUID trigger(String taskId, Object payload) {
        return runlane.template().trigger(taskId, payload).runId();
    }

    private static Run awaitStatus(UUID runId, RunStatus status, int attempts) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> runlane.run(runId), run -> run.status() == status && run.attempts() == attempts);
    }

    /** Makes a RETRYING run due now, as if its backoff had passed on the database clock. */
    private static void backoffPassed(UUID runId) {
        runlane.jdbc().update("UPDATE " + runlane.schema() + ".runs SET run_at = now() WHERE id = ?", runId);
        runlane.engine().worker().wake();
    }

    private static Duration scheduledDelay(Run run) {
        return Duration.between(run.updatedAt(), run.runAt());
    }

    @Test
    @DisplayName(
            "S-EX-4: exponential backoff doubles from the initial delay, is capped, and maxAttempts counts the first")
    void exponentialBackoffAndExactAttemptCount() {
        String key = "exp-" + UUID.randomUUID();
        UUID runId = trigger("retry.failing", new Failing.Payload(key, "retryable"));

        Run first = awaitStatus(runId, RunStatus.RETRYING, 1);
        assertThat(scheduledDelay(first)).isEqualTo(Duration.ofHours(1));
        backoffPassed(runId);
        Run second = awaitStatus(runId, RunStatus.RETRYING, 2);
        assertThat(scheduledDelay(second)).isEqualTo(Duration.ofHours(2));
        backoffPassed(runId);
        Run third = awaitStatus(runId, RunStatus.RETRYING, 3);
        assertThat(scheduledDelay(third)).as("capped at the maximum").isEqualTo(Duration.ofHours(3));
        backoffPassed(runId);
        Run failed = awaitStatus(runId, RunStatus.FAILED, 4);

        assertThat(CALLS.get(key)).hasValue(4);
        assertThat(runlane.template().runs().attempts(runId))
                .extracting(RunAttempt::attempt, RunAttempt::outcome, RunAttempt::endedBy)
                .containsExactly(
                        tuple(1, RunStatus.RETRYING, RunEventType.RETRY_SCHEDULED),
                        tuple(2, RunStatus.RETRYING, RunEventType.RETRY_SCHEDULED),
                        tuple(3, RunStatus.RETRYING, RunEventType.RETRY_SCHEDULED),
                        tuple(4, RunStatus.FAILED, RunEventType.FAILED));
        assertThat(runlane.template().runs().attempts(runId)).allSatisfy(attempt -> {
            assertThat(attempt.worker()).startsWith("worker-");
            assertThat(attempt.endedAt()).isAfterOrEqualTo(attempt.startedAt());
            assertThat(attempt.detail()).isEqualTo("try again");
        });
        assertThat(failed.finishedAt()).isNotNull();
        assertThat(failed.failure().code()).isEqualTo("exception");
        assertThat(failed.failure().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(failed.failure().message()).isEqualTo("try again");
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.RETRY_SCHEDULED,
                        RunEventType.CLAIMED,
                        RunEventType.RETRY_SCHEDULED,
                        RunEventType.CLAIMED,
                        RunEventType.RETRY_SCHEDULED,
                        RunEventType.CLAIMED,
                        RunEventType.FAILED);
    }

    @Test
    @DisplayName("S-EX-4: a task's fixed backoff applies to every retry")
    void fixedBackoffFromTheTask() {
        String key = "fixed-" + UUID.randomUUID();
        UUID runId = trigger("retry.fixed", new Failing.Payload(key, "retryable"));

        assertThat(scheduledDelay(awaitStatus(runId, RunStatus.RETRYING, 1))).isEqualTo(Duration.ofHours(1));
        backoffPassed(runId);
        assertThat(scheduledDelay(awaitStatus(runId, RunStatus.RETRYING, 2))).isEqualTo(Duration.ofHours(1));
        backoffPassed(runId);
        awaitStatus(runId, RunStatus.FAILED, 3);
        assertThat(CALLS.get(key)).hasValue(3);
    }

    @Test
    @DisplayName("S-EX-4: NonRetryableException fails the run at the first attempt")
    void nonRetryableExceptionFailsAtOnce() {
        String key = "nr-" + UUID.randomUUID();
        UUID runId = trigger("retry.failing", new Failing.Payload(key, "non-retryable"));

        Run failed = awaitStatus(runId, RunStatus.FAILED, 1);

        assertThat(failed.failure().code()).isEqualTo("non_retryable");
        assertThat(failed.failure().exceptionClass()).isEqualTo(NonRetryableException.class.getName());
        assertThat(CALLS.get(key)).hasValue(1);
    }

    @Test
    @DisplayName("S-EX-4: a type listed in noRetryFor fails the run at the first attempt")
    void noRetryForTypeFailsAtOnce() {
        String key = "listed-" + UUID.randomUUID();
        UUID runId = trigger("retry.fixed", new Failing.Payload(key, "listed"));

        Run failed = awaitStatus(runId, RunStatus.FAILED, 1);

        assertThat(failed.failure().exceptionClass()).isEqualTo(UnsupportedOperationException.class.getName());
        assertThat(CALLS.get(key)).hasValue(1);
    }

    @Test
    @DisplayName("S-EX-5: the stored failure names the class and truncates the message")
    void failureMessageIsTruncated() {
        UUID runId = trigger("retry.failing", new Failing.Payload("long-" + UUID.randomUUID(), "long"));

        Run retrying = awaitStatus(runId, RunStatus.RETRYING, 1);

        assertThat(retrying.failure().message()).hasSize(50).startsWith("xxxx").endsWith("…");
        assertThat(runlane.template().runs().events(runId).get(2).detail())
                .isEqualTo(retrying.failure().message());
    }

    @Test
    @DisplayName("S-EX-6, S-EX-14: releases keep the run id and do not spend the retry budget")
    void releasesDoNotSpendTheBudget() {
        String key = "rel-" + UUID.randomUUID();
        UUID runId = trigger("retry.releasing", new Releasing.Payload(key));

        Run succeeded = awaitStatus(runId, RunStatus.SUCCEEDED, 3);

        assertThat(succeeded.id()).isEqualTo(runId);
        assertThat(succeeded.maxAttempts()).isOne();
        assertThat(CALLS.get(key)).hasValue(3);
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.RELEASED,
                        RunEventType.CLAIMED,
                        RunEventType.RELEASED,
                        RunEventType.CLAIMED,
                        RunEventType.SUCCEEDED);
    }

    @Test
    @DisplayName("S-ID-4, S-EX-13: a stored payload that no longer validates fails the run without calling the handler")
    void invalidStoredPayloadFailsWithoutCallingTheHandler() {
        String key = "payload-" + UUID.randomUUID();
        UUID runId = runlane.template()
                .trigger(
                        "retry.failing",
                        new Failing.Payload(key, "retryable"),
                        io.runlane.TriggerOptions.builder()
                                .delay(Duration.ofHours(1))
                                .build())
                .runId();
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET payload = '{\"key\": \"\"}', run_at = now()"
                                + " WHERE id = ?",
                        runId);
        runlane.engine().worker().wake();

        Run failed = awaitStatus(runId, RunStatus.FAILED, 1);

        assertThat(failed.failure().code()).isEqualTo("payload_invalid");
        assertThat(failed.failure().message()).contains("key");
        assertThat(CALLS.get(key)).isNull();
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.worker.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-4: the delay before each retry, for the configured backoff and for a task's own. */
class RetryPolicyTests {

    private static final TaskDefinitionReader READER = new TaskDefinitionReader(
            new RunlaneSettings("default", "runlane", IdempotencyKeyTtl.parse("30d"), 5, Set.of()));

    private final RetryPolicy policy =
            new RetryPolicy(ExecutionSettings.defaults().withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30)));

    abstract static class NoOp implements TaskHandler<String> {

        @Override
        public void run(String payload, RunContext context) {}
    }

    @Task(id = "policy.exponential", maxAttempts = 10, backoff = "2s", backoffMultiplier = 3, maxBackoff = "1m")
    static class Exponential extends NoOp {}

    @Task(id = "policy.fractional", maxAttempts = 10, backoff = "1s", backoffMultiplier = 1.5, maxBackoff = "3s")
    static class Fractional extends NoOp {}

    @Task(id = "policy.multiplier-only", maxAttempts = 10, backoffMultiplier = 4)
    static class MultiplierOnly extends NoOp {}

    @Task(id = "policy.max-only", maxAttempts = 10, maxBackoff = "5s")
    static class MaxOnly extends NoOp {}

    @Task(id = "policy.fixed", maxAttempts = 10, backoff = "10s")
    static class Fixed extends NoOp {}

    @Task(id = "policy.configured", maxAttempts = 10)
    static class Configured extends NoOp {}

    private List<Duration> delays(TaskHandler<?> handler, int attempts) {
        TaskDefinition task = READER.read(handler);
        return IntStream.rangeClosed(1, attempts)
                .mapToObj(spent -> policy.retryDelay(task, claimed(spent), new IllegalStateException()))
                .toList();
    }

    private static ClaimedRun claimed(int attempts) {
        Instant now = Instant.now();
        Run run = new Run(
                UUID.randomUUID(),
                "t",
                "default",
                RunStatus.RUNNING,
                null,
                null,
                attempts,
                10,
                now,
                now,
                now,
                null,
                null,
                "\"p\"",
                null,
                null,
                null,
                null,
                null,
                attempts,
                0,
                null,
                null);
        return new ClaimedRun(run, 1, 0);
    }

    private static List<Duration> seconds(double... values) {
        return java.util.Arrays.stream(values)
                .mapToObj(value -> Duration.ofMillis(Math.round(value * 1000)))
                .toList();
    }

    @Test
    @DisplayName("Finding 18, S-EX-4: a task's exponential backoff multiplies from its first delay up to its cap")
    void taskExponentialBackoff() {
        assertThat(delays(new Exponential(), 5)).isEqualTo(seconds(2, 6, 18, 54, 60));
    }

    @Test
    @DisplayName("Finding 18, S-EX-4: a fractional multiplier grows the delay and stops at the cap")
    void fractionalMultiplier() {
        assertThat(delays(new Fractional(), 5)).isEqualTo(seconds(1, 1.5, 2.25, 3, 3));
    }

    @Test
    @DisplayName("Finding 18, S-EX-4: a multiplier alone starts from the configured initial backoff and maximum")
    void multiplierAloneUsesTheConfiguredBounds() {
        assertThat(delays(new MultiplierOnly(), 4)).isEqualTo(seconds(1, 4, 16, 30));
    }

    @Test
    @DisplayName("Finding 18, S-EX-4: a maximum alone caps the configured doubling")
    void maximumAloneCapsTheConfiguredDoubling() {
        assertThat(delays(new MaxOnly(), 5)).isEqualTo(seconds(1, 2, 4, 5, 5));
    }

    @Test
    @DisplayName("S-EX-4: a fixed backoff and the configured backoff are unchanged")
    void fixedAndConfiguredBackoffs() {
        assertThat(delays(new Fixed(), 3)).isEqualTo(seconds(10, 10, 10));
        assertThat(delays(new Configured(), 7)).isEqualTo(seconds(1, 2, 4, 8, 16, 30, 30));
    }
}

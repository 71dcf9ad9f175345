package io.runlane.internal.worker;

import io.runlane.NonRetryableException;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.registry.TaskDefinition;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Decides whether a failed attempt retries and after how long (S-EX-4): {@code maxAttempts} counts the first attempt
 * and only attempts that did not end in a release (S-EX-6); the delay is the task's fixed backoff, or exponential:
 * the first delay (the task's {@code backoff}, else the configured initial backoff) multiplied by the task's
 * multiplier (else 2) once per further spent attempt, capped at the task's maximum (else the configured one).
 */
public final class RetryPolicy {

    private final Duration initialBackoff;

    private final Duration maxBackoff;

    public RetryPolicy(ExecutionSettings settings) {
        this.initialBackoff = settings.initialBackoff();
        this.maxBackoff = settings.maxBackoff();
    }

    /** The delay before the next attempt, or {@code null} when the run must fail now. */
    public @Nullable Duration retryDelay(
            @Nullable TaskDefinition task, ClaimedRun claimed, @Nullable Throwable failure) {
        if (failure != null && !isRetryable(task, failure)) {
            return null;
        }
        int spent = claimed.spentAttempts();
        if (spent >= claimed.run().maxAttempts()) {
            return null;
        }
        if (task == null || !task.declaresBackoff()) {
            return exponential(spent);
        }
        if (task.backoffMultiplier() == 0 && task.backoff() != null) {
            return task.backoff();
        }
        return exponential(
                task.backoff() != null ? task.backoff() : initialBackoff,
                task.backoffMultiplier() > 0 ? task.backoffMultiplier() : 2,
                task.maxBackoff() != null ? task.maxBackoff() : maxBackoff,
                spent);
    }

    /**
     * {@code first * multiplier^(spentAttempts - 1)}, capped at {@code max}, as Spring's {@link ExponentialBackOff}
     * computes it (in milliseconds). A cap below the first delay wins (a task's cap under the configured initial
     * backoff); the sequence is walked only until it stops growing, so a large attempt count costs nothing more.
     */
    static Duration exponential(Duration first, double multiplier, Duration max, int spentAttempts) {
        ExponentialBackOff backOff = new ExponentialBackOff(Math.max(1, first.toMillis()), multiplier);
        backOff.setMaxInterval(Math.max(1, max.toMillis()));
        BackOffExecution execution = backOff.start();
        long delay = execution.nextBackOff();
        for (int attempt = 2; attempt <= spentAttempts; attempt++) {
            long next = execution.nextBackOff();
            if (next == delay) {
                break;
            }
            delay = next;
        }
        return Duration.ofMillis(delay);
    }

    /** The exponential delay after the given number of spent attempts (1: the initial backoff), doubling. */
    public Duration exponential(int spentAttempts) {
        return exponential(initialBackoff, 2, maxBackoff, spentAttempts);
    }

    private static boolean isRetryable(@Nullable TaskDefinition task, Throwable failure) {
        if (failure instanceof NonRetryableException) {
            return false;
        }
        return task == null || task.noRetryFor().stream().noneMatch(type -> type.isInstance(failure));
    }
}

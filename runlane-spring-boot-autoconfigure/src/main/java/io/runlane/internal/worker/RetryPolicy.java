package io.runlane.internal.worker;

import io.runlane.NonRetryableException;
import io.runlane.internal.ExecutionSettings;
import io.runlane.internal.jdbc.ClaimedRun;
import io.runlane.internal.registry.TaskDefinition;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

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
     * {@code first * multiplier^(spentAttempts - 1)}, capped at {@code max}; computed in floating point, so a
     * multiplier that overflows simply reaches the cap. A cap below the first delay wins (a task's cap under the
     * configured initial backoff).
     */
    static Duration exponential(Duration first, double multiplier, Duration max, int spentAttempts) {
        double nanos = first.toNanos() * Math.pow(multiplier, Math.max(0, spentAttempts - 1));
        if (!(nanos < max.toNanos())) {
            return max;
        }
        return Duration.ofNanos(Math.round(nanos));
    }

    /** The exponential delay after the given number of spent attempts (1: the initial backoff). */
    public Duration exponential(int spentAttempts) {
        int doublings = Math.max(0, Math.min(spentAttempts - 1, 62));
        Duration delay = initialBackoff;
        for (int i = 0; i < doublings && delay.compareTo(maxBackoff) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(maxBackoff) > 0 ? maxBackoff : delay;
    }

    private static boolean isRetryable(@Nullable TaskDefinition task, Throwable failure) {
        if (failure instanceof NonRetryableException) {
            return false;
        }
        return task == null || task.noRetryFor().stream().noneMatch(type -> type.isInstance(failure));
    }
}

package io.runlane;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.stereotype.Component;

/**
 * Declares a {@link TaskHandler} bean as a Runlane task. The same declaration is used by producers and workers, so
 * its key rules and policy apply wherever the task is triggered (S-TR-2).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Component
public @interface Task {

    /** The task id: 1 to 255 characters, no {@code :}, no control characters, no surrounding whitespace. */
    String id();

    /** The queue runs of this task join; it must be {@code default} or declared under {@code runlane.queues}. */
    String queue() default "default";

    /**
     * How long a finished owner keeps its idempotency key: a duration such as {@code 30s}, {@code 15m}, {@code 24h},
     * {@code 7d}, or {@code active} to release the key as soon as the owner is terminal. Empty means the configured
     * default ({@code runlane.idempotency.default-ttl}).
     */
    String idempotencyKeyTtl() default "";

    /** Attempts a run may make, counting the first; 0 means the configured default. */
    int maxAttempts() default 0;

    /**
     * The retry backoff such as {@code 10s}: fixed, or the first delay when {@link #backoffMultiplier()} is set. Empty
     * means the configured exponential default ({@code runlane.retry.initial-backoff}, doubling).
     */
    String backoff() default "";

    /**
     * Makes the backoff exponential: each retry waits this many times longer than the previous one, from {@link
     * #backoff()} (or the configured initial backoff) up to {@link #maxBackoff()}. Must be at least 1; 0 (the
     * default) means a fixed {@code backoff}, or the configured doubling when {@code backoff} is empty (S-EX-4).
     */
    double backoffMultiplier() default 0;

    /**
     * The longest exponential retry delay, such as {@code 10m}; empty means the configured maximum ({@code
     * runlane.retry.max-backoff}). Only for an exponential backoff, and not shorter than its first delay.
     */
    String maxBackoff() default "";

    /** Exception types that fail a run at once instead of being retried. */
    Class<? extends Throwable>[] noRetryFor() default {};

    /**
     * What a trigger does when the run's singleton key is held by another active run (S-CP-1); a trigger's {@link
     * TriggerOptions.Builder#onSingletonConflict} overrides it.
     */
    SingletonConflictPolicy onSingletonConflict() default SingletonConflictPolicy.FAIL;

    /**
     * How long one attempt may run, such as {@code 30s} or {@code 15m}; empty means the configured default ({@code
     * runlane.worker.attempt-timeout}, none unless set). An attempt running longer fails with code {@code
     * attempt_timeout}, retried by the task's retry policy, and its thread is interrupted (S-EX-21).
     */
    String timeout() default "";

    /**
     * The priority of the task's runs, from -100 to 100 (default 0): among a queue's due runs a higher priority is
     * claimed first, equal priorities oldest due first (S-PR-1, S-PR-2). A trigger's {@link
     * TriggerOptions.Builder#priority} overrides it. It orders claims within a queue only: it never overrides a
     * concurrency limit, a singleton key or the rotation between queues.
     */
    int priority() default 0;

    /**
     * The debounce period, such as {@code 5s}: triggers of one debounce key ({@link TaskKeys#debounceKey} or {@link
     * TriggerOptions.Builder#debounceKey}) fold into one pending run that starts this long after the last of them
     * (S-DB-1). Empty means no debounce; a trigger's {@link TriggerOptions.Builder#debounce} overrides it.
     */
    String debounce() default "";

    /**
     * The longest a debounced run is postponed after the first trigger of its window, such as {@code 1m} (S-DB-1);
     * empty means no bound. Not shorter than {@link #debounce()}.
     */
    String debounceMaxWait() default "";

    /** Whether a folded trigger replaces the pending run's payload ({@code LATEST}) or keeps the first (S-DB-2). */
    DebounceMode debounceMode() default DebounceMode.LATEST;

    /**
     * At most this many runs of the task per rate-limit key ({@link TaskKeys#rateLimitKey} or {@link
     * TriggerOptions.Builder#rateLimitKey}; none: one limit for the task) are created in any window of {@link
     * #rateLimitPeriod()}; a trigger over it fails with {@link RateLimitExceededException} (S-RT-1, S-RT-2). 0
     * means no limit.
     */
    int rateLimit() default 0;

    /** The window of {@link #rateLimit()}, such as {@code 1m} or {@code 1h}; required with a rate limit. */
    String rateLimitPeriod() default "";

    /**
     * At most this many attempts of the task per throttle key ({@link TaskKeys#throttleKey} or {@link
     * TriggerOptions.Builder#throttleKey}; none: one throttle for the task) start in any window of {@link
     * #throttlePeriod()}, across all instances; runs over it wait their turn (S-TH-1, S-TH-2). 0 means none.
     */
    int throttle() default 0;

    /** The window of {@link #throttle()}, such as {@code 1s}; required with a throttle. */
    String throttlePeriod() default "";
}

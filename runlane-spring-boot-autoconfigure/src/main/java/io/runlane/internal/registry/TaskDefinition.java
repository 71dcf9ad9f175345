package io.runlane.internal.registry;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.SingletonConflictPolicy;
import io.runlane.TaskHandler;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A validated task declaration: the handler bean, its payload type and its policy, with configured defaults
 * already applied where the declaration left a value empty.
 *
 * @param id the task id
 * @param queue the queue
 * @param handler the handler bean, or a stand-in that looks it up on first use (see
 *     {@link TaskDefinitionReader#read(Class, java.util.function.Supplier)})
 * @param handlerClass the user class of the handler (not a proxy)
 * @param payloadClass the raw payload class
 * @param payloadType the full generic payload type, for JSON mapping
 * @param idempotencyKeyTtl the task's retention, or {@code null} to use the configured default at trigger time
 * @param maxAttempts the attempt budget
 * @param backoff the task's fixed retry backoff, or the first delay of its exponential one; {@code null} for the
 *     configured initial backoff
 * @param noRetryFor exception types that fail the run at once
 * @param backoffMultiplier the growth of an exponential backoff (at least 1), or 0 for a fixed {@code backoff} (or
 *     the configured doubling when {@code backoff} is {@code null})
 * @param maxBackoff the cap of the task's exponential backoff, or {@code null} for the configured maximum
 * @param timeout how long one attempt may run, or {@code null} for the configured default (S-EX-21)
 * @param onSingletonConflict what a trigger of this task does when its singleton key is held (S-CP-1):
 *     {@code @Task(onSingletonConflict)}, {@code FAIL} unless declared; read once, as every trigger asks
 * @param priority the priority of the task's runs unless a trigger names one (S-PR-1)
 * @param debounce the task's debounce, or {@code null} for none unless a trigger names one (S-DB-1)
 * @param rateLimit the task's rate limit, or {@code null} for none (S-RT-1)
 * @param throttle the task's throttle, or {@code null} for none (S-TH-1)
 */
public record TaskDefinition(
        String id,
        String queue,
        TaskHandler<Object> handler,
        Class<?> handlerClass,
        Class<?> payloadClass,
        Type payloadType,
        @Nullable IdempotencyKeyTtl idempotencyKeyTtl,
        int maxAttempts,
        @Nullable Duration backoff,
        List<Class<? extends Throwable>> noRetryFor,
        double backoffMultiplier,
        @Nullable Duration maxBackoff,
        @Nullable Duration timeout,
        SingletonConflictPolicy onSingletonConflict,
        int priority,
        @Nullable DebouncePolicy debounce,
        @Nullable RateLimitPolicy rateLimit,
        @Nullable ThrottlePolicy throttle) {

    /** Whether the task declared a backoff of its own rather than leaving the configured one. */
    public boolean declaresBackoff() {
        return backoff != null || backoffMultiplier > 0 || maxBackoff != null;
    }
}

package io.runlane.internal.trigger;

import io.runlane.SingletonConflictPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A fully validated run, ready to be admitted: every key has passed S-ID-1 and the payload S-ID-4. Only the
 * database decides whether it is created, answered by an existing owner, or refused by a singleton owner.
 *
 * @param id the id the run gets if it is created
 * @param taskId the task id
 * @param queue the queue
 * @param payloadJson the payload as JSON text
 * @param idempotencyKey the idempotency key, if any
 * @param idempotencyKeyTtl the retention to store with the run (zero for {@code active}); only with a key
 * @param singletonKey the singleton key, if any
 * @param concurrencyKey the concurrency key, if any
 * @param maxAttempts the attempt budget
 * @param runAt an absolute due time, if the caller gave one
 * @param delay a delay from the database's now, if the caller gave one
 * @param sourceType how the run was derived from another ({@code RERUN}, {@code RETRY}), if it was
 * @param sourceRunId the run it was derived from, if any
 * @param onSingletonConflict what to do when another active run holds the singleton key (S-CP-1)
 * @param signalName the signal that {@code SIGNAL_OWNER} delivers the payload as (S-CP-4); only with that policy
 * @param traceContext the trigger's trace context, stored for the run's attempts to continue (S-MO-9); empty when
 *     the trigger was not traced
 * @param priority the run's priority (S-PR-1): the trigger's, else the task's
 * @param debounce how the trigger debounces (S-DB-1), or {@code null} when it does not
 * @param rateLimit the task's rate limit and the run's rate-limit key (S-RT-1), or {@code null} when the task has
 *     none; only then does the admission count the run
 * @param throttleKey the key its task's throttle counts its attempts under (S-TH-1): the trigger's, else the
 *     resolver's, else the empty string (one throttle for the task); {@code null} when the task has no throttle
 */
public record NewRun(
        UUID id,
        String taskId,
        String queue,
        String payloadJson,
        @Nullable String idempotencyKey,
        @Nullable Duration idempotencyKeyTtl,
        @Nullable String singletonKey,
        @Nullable String concurrencyKey,
        int maxAttempts,
        @Nullable Instant runAt,
        @Nullable Duration delay,
        @Nullable String sourceType,
        @Nullable UUID sourceRunId,
        SingletonConflictPolicy onSingletonConflict,
        @Nullable String signalName,
        Map<String, String> traceContext,
        int priority,
        @Nullable DebounceTerms debounce,
        @Nullable RateLimitedKey rateLimit,
        @Nullable String throttleKey) {

    public NewRun {
        traceContext = Map.copyOf(traceContext);
    }

    /** A run of a trigger that does not debounce. */
    public NewRun(
            UUID id,
            String taskId,
            String queue,
            String payloadJson,
            @Nullable String idempotencyKey,
            @Nullable Duration idempotencyKeyTtl,
            @Nullable String singletonKey,
            @Nullable String concurrencyKey,
            int maxAttempts,
            @Nullable Instant runAt,
            @Nullable Duration delay,
            @Nullable String sourceType,
            @Nullable UUID sourceRunId,
            SingletonConflictPolicy onSingletonConflict,
            @Nullable String signalName,
            Map<String, String> traceContext,
            int priority) {
        this(
                id,
                taskId,
                queue,
                payloadJson,
                idempotencyKey,
                idempotencyKeyTtl,
                singletonKey,
                concurrencyKey,
                maxAttempts,
                runAt,
                delay,
                sourceType,
                sourceRunId,
                onSingletonConflict,
                signalName,
                traceContext,
                priority,
                null,
                null,
                null);
    }

    /** A run that fails on a singleton conflict (S-SK-2). */
    public NewRun(
            UUID id,
            String taskId,
            String queue,
            String payloadJson,
            @Nullable String idempotencyKey,
            @Nullable Duration idempotencyKeyTtl,
            @Nullable String singletonKey,
            @Nullable String concurrencyKey,
            int maxAttempts,
            @Nullable Instant runAt,
            @Nullable Duration delay,
            @Nullable String sourceType,
            @Nullable UUID sourceRunId) {
        this(
                id,
                taskId,
                queue,
                payloadJson,
                idempotencyKey,
                idempotencyKeyTtl,
                singletonKey,
                concurrencyKey,
                maxAttempts,
                runAt,
                delay,
                sourceType,
                sourceRunId,
                SingletonConflictPolicy.FAIL,
                null,
                Map.of(),
                0,
                null,
                null,
                null);
    }
}

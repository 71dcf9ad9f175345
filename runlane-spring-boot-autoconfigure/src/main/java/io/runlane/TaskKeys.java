package io.runlane;

import org.jspecify.annotations.Nullable;

/**
 * The key resolvers shared by {@link TaskHandler} and {@link TaskFunction}: they derive keys from stable business
 * identity in the payload and must be pure functions, so the same payload always yields the same keys.
 *
 * @param <P> the payload type
 */
public interface TaskKeys<P> {

    /** The idempotency key for a payload, or {@code null} for none. */
    default @Nullable String idempotencyKey(P payload) {
        return null;
    }

    /** The singleton key for a payload, or {@code null} for none. */
    default @Nullable String singletonKey(P payload) {
        return null;
    }

    /** The concurrency key that partitions the queue's concurrency limit, or {@code null} for none. */
    default @Nullable String concurrencyKey(P payload) {
        return null;
    }

    /** The debounce key whose triggers fold into one pending run (S-DB-1), or {@code null} for none. */
    default @Nullable String debounceKey(P payload) {
        return null;
    }

    /** The key the task's rate limit counts per (S-RT-1), or {@code null} for one limit for the whole task. */
    default @Nullable String rateLimitKey(P payload) {
        return null;
    }

    /** The key the task's throttle counts per (S-TH-1), or {@code null} for one throttle for the whole task. */
    default @Nullable String throttleKey(P payload) {
        return null;
    }
}

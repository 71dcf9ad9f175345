package io.runlane;

import org.jspecify.annotations.Nullable;

/**
 * User code for a task. The payload type {@code P} is read from the generic argument; it must be mappable to and
 * from JSON and may carry Jakarta Bean Validation constraints, which are checked before a run is stored.
 *
 * <p>The key resolvers derive keys from stable business identity in the payload. They must be pure functions: the
 * same payload always yields the same keys.
 *
 * @param <P> the payload type
 */
public interface TaskHandler<P> {

    /** Executes one attempt of a run. */
    void run(P payload, RunContext context) throws Exception;

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
}

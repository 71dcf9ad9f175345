package io.runlane.internal.trigger;

import io.runlane.internal.registry.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The rate limit a new run is counted against (S-RT-1): its task's policy and its rate-limit key.
 *
 * @param key the rate-limit key, or {@code null} for the whole task's limit
 * @param policy the task's declared limit and period
 */
record RateLimitedKey(@Nullable String key, RateLimitPolicy policy) {

    /** The key as stored: {@code ''} stands for the whole task, which no valid key can be (S-ID-1). */
    public String storedKey() {
        return key == null ? "" : key;
    }
}

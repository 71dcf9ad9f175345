package io.runlane.internal.registry;

import java.time.Duration;

/**
 * A task's declared rate limit (S-RT-1): at most {@code limit} runs per rate-limit key created in any window of
 * {@code period}.
 *
 * @param limit the runs allowed per window
 * @param period the window
 */
public record RateLimitPolicy(int limit, Duration period) {}

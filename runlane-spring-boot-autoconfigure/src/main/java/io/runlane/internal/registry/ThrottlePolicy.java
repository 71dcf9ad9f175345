package io.runlane.internal.registry;

import java.time.Duration;

/**
 * A task's declared throttle (S-TH-1): at most {@code limit} attempts per throttle key start in any window of
 * {@code period}, across all instances.
 *
 * @param limit the attempt starts allowed per window
 * @param period the window
 */
public record ThrottlePolicy(int limit, Duration period) {}

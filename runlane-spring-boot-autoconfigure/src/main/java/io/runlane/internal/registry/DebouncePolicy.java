package io.runlane.internal.registry;

import io.runlane.DebounceMode;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A task's declared debounce (S-DB-1, S-DB-2): triggers of one debounce key fold into one pending run due
 * {@code period} after the last of them, never later than {@code maxWait} after the first.
 *
 * @param period how long after the last folded trigger the pending run is due
 * @param maxWait the longest postponement after a window's first trigger, or {@code null} for none
 * @param mode whether a folded trigger replaces the payload
 */
public record DebouncePolicy(Duration period, @Nullable Duration maxWait, DebounceMode mode) {}

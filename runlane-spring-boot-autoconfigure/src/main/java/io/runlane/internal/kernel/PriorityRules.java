package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import org.jspecify.annotations.Nullable;

/** The range of a run's priority (S-PR-1): an integer from {@value #LOWEST} to {@value #HIGHEST}, default 0. */
public final class PriorityRules {

    public static final int LOWEST = -100;

    public static final int HIGHEST = 100;

    private PriorityRules() {}

    /** Why {@code priority} is not a valid priority, or {@code null} when it is. */
    public static @Nullable String violation(int priority) {
        return priority < LOWEST || priority > HIGHEST
                ? "must be from " + LOWEST + " to " + HIGHEST + ", but was " + priority
                : null;
    }

    /** Returns {@code priority} when it is in range; else throws {@link ConfigurationInvalidException}. */
    public static int requireValid(String field, int priority) {
        String reason = violation(priority);
        if (reason != null) {
            throw new ConfigurationInvalidException(field, reason);
        }
        return priority;
    }
}

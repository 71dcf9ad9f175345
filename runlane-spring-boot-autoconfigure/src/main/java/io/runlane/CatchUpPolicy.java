package io.runlane;

/**
 * What a schedule does with occurrences it missed while no instance ran or while it was paused, within {@code
 * runlane.schedules.catch-up-window} (S-SC-4, S-SC-7).
 */
public enum CatchUpPolicy {
    /** Fires none of them; the schedule continues with its next occurrence. */
    NONE,
    /** Fires one run for the newest missed occurrence (the default). */
    LATEST,
    /** Fires one run for each missed occurrence, oldest first. */
    ALL
}

package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import java.time.Duration;

/**
 * The schedules' configuration (S-SC-2, S-SC-4).
 *
 * @param pollInterval how often an instance looks for due schedules it did not expect; a schedule fires late by at
 *     most this much
 * @param catchUpWindow how far back missed occurrences are still caught up
 */
public record ScheduleSettings(Duration pollInterval, Duration catchUpWindow) {

    public ScheduleSettings {
        if (pollInterval == null || pollInterval.isNegative() || pollInterval.isZero()) {
            throw new ConfigurationInvalidException(
                    "runlane.schedules.poll-interval", "must be positive, but was " + pollInterval);
        }
        if (catchUpWindow == null) {
            throw new ConfigurationInvalidException("runlane.schedules.catch-up-window", "must be set");
        }
        TimeRules.requireDuration("runlane.schedules.catch-up-window", catchUpWindow);
    }

    /** Polls every 10 seconds; catches up occurrences of the last hour. */
    public static ScheduleSettings defaults() {
        return new ScheduleSettings(Duration.ofSeconds(10), Duration.ofHours(1));
    }

    /**
     * How late an occurrence may be fired and still count as on time rather than missed (S-SC-7): twice the poll
     * interval, and at least 10 seconds, so that a busy instance never drops occurrences it merely fired late.
     */
    public Duration misfireThreshold() {
        Duration twoPolls = pollInterval.multipliedBy(2);
        return twoPolls.compareTo(Duration.ofSeconds(10)) < 0 ? Duration.ofSeconds(10) : twoPolls;
    }
}

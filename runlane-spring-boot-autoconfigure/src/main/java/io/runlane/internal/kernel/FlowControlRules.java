package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The ranges of the flow-control settings (S-DB-1, S-RT-1, S-TH-1), shared by the task declaration (checked at
 * start-up) and the per-call trigger options (checked at the trigger, before anything is written).
 */
public final class FlowControlRules {

    /** The shortest period of a debounce, rate limit or throttle: one millisecond. */
    public static final Duration SHORTEST_PERIOD = Duration.ofMillis(1);

    /** The longest debounce period. */
    public static final Duration LONGEST_DEBOUNCE = Duration.ofDays(30);

    /** The longest debounce maximum wait. */
    public static final Duration LONGEST_DEBOUNCE_MAX_WAIT = Duration.ofDays(365);

    /** The longest rate-limit window. */
    public static final Duration LONGEST_RATE_LIMIT_PERIOD = Duration.ofDays(31);

    /** The most runs a rate limit may allow per window: each counted creation is a row for its window. */
    public static final int MOST_RATE_LIMIT = 100_000;

    /** The longest throttle window. */
    public static final Duration LONGEST_THROTTLE_PERIOD = Duration.ofDays(1);

    /** The most attempt starts a throttle may allow per window. */
    public static final int MOST_THROTTLE = 10_000;

    private FlowControlRules() {}

    /** Why {@code period} is not a valid debounce period, or {@code null} when it is. */
    public static @Nullable String debounceViolation(Duration period) {
        return periodViolation(period, LONGEST_DEBOUNCE);
    }

    /** Why {@code maxWait} is not a valid maximum wait for {@code period}, or {@code null} when it is. */
    public static @Nullable String debounceMaxWaitViolation(Duration maxWait, @Nullable Duration period) {
        String reason = periodViolation(maxWait, LONGEST_DEBOUNCE_MAX_WAIT);
        if (reason == null && period != null && maxWait.compareTo(period) < 0) {
            return "must not be shorter than the debounce period " + period + ", but was " + maxWait;
        }
        return reason;
    }

    /** Why {@code limit} is not a valid rate limit, or {@code null} when it is. */
    public static @Nullable String rateLimitViolation(int limit) {
        return limitViolation(limit, MOST_RATE_LIMIT);
    }

    /** Why {@code period} is not a valid rate-limit window, or {@code null} when it is. */
    public static @Nullable String rateLimitPeriodViolation(Duration period) {
        return periodViolation(period, LONGEST_RATE_LIMIT_PERIOD);
    }

    /** Why {@code limit} is not a valid throttle, or {@code null} when it is. */
    public static @Nullable String throttleViolation(int limit) {
        return limitViolation(limit, MOST_THROTTLE);
    }

    /** Why {@code period} is not a valid throttle window, or {@code null} when it is. */
    public static @Nullable String throttlePeriodViolation(Duration period) {
        return periodViolation(period, LONGEST_THROTTLE_PERIOD);
    }

    /** Returns {@code value} when {@code reason} is {@code null}; else throws {@link ConfigurationInvalidException}. */
    public static <T> T require(String field, T value, @Nullable String reason) {
        if (reason != null) {
            throw new ConfigurationInvalidException(field, reason);
        }
        return value;
    }

    private static @Nullable String periodViolation(Duration period, Duration longest) {
        if (period.compareTo(SHORTEST_PERIOD) < 0 || period.compareTo(longest) > 0) {
            return "must be from " + SHORTEST_PERIOD + " to " + longest + ", but was " + period;
        }
        return null;
    }

    private static @Nullable String limitViolation(int limit, int most) {
        return limit < 1 || limit > most ? "must be from 1 to " + most + ", but was " + limit : null;
    }
}

package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The rule of S-ID-10 for the times and durations Runlane stores or adds to the database clock. PostgreSQL keeps
 * timestamps from 4713 BC to the year 294276, and Runlane adds a stored duration to the time of a trigger or a finish,
 * or subtracts an age from the present, so it takes run-at times in the years 1 to 9999 and durations of up to 1,000
 * years. Anything else is refused, naming the field, before anything is written, instead of failing untyped in the
 * database or in {@link Duration#toMillis()}.
 */
public final class TimeRules {

    /** The earliest run-at time: the first instant of the year 1. */
    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");

    /** The latest run-at time: the last instant of the year 9999. */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999999Z");

    /** The longest duration: 1,000 years of 365.25 days. */
    public static final Duration LONGEST = Duration.ofDays(365_250);

    private TimeRules() {}

    /** Returns {@code value} when it is neither negative nor longer than {@link #LONGEST}; else throws. */
    public static Duration requireDuration(String field, Duration value) {
        Objects.requireNonNull(value, field);
        String reason = violation(value);
        if (reason != null) {
            throw new ConfigurationInvalidException(field, reason);
        }
        return value;
    }

    /** Like {@link #requireDuration} but lets {@code null} (not set) through. */
    public static @Nullable Duration requireDurationOrNull(String field, @Nullable Duration value) {
        return value == null ? null : requireDuration(field, value);
    }

    /** Returns {@code ttl} when its duration, if any, is at most {@link #LONGEST}; else throws. */
    public static IdempotencyKeyTtl requireTtl(String field, IdempotencyKeyTtl ttl) {
        if (!ttl.isActive()) {
            requireDuration(field, ttl.duration());
        }
        return ttl;
    }

    /** Why {@code value} breaks S-ID-10, or {@code null} when it is a valid duration. */
    public static @Nullable String violation(Duration value) {
        if (value.isNegative()) {
            return "must not be negative, but was " + value;
        }
        if (value.compareTo(LONGEST) > 0) {
            return "must be at most 365250 days (1000 years), but was " + value;
        }
        return null;
    }

    /** Returns {@code value} when it is {@code null} or in the years 1 to 9999; else throws. */
    public static @Nullable Instant requireInstantOrNull(String field, @Nullable Instant value) {
        if (value != null && (value.isBefore(EARLIEST) || value.isAfter(LATEST))) {
            throw new ConfigurationInvalidException(
                    field, "must be in the years 1 to 9999 (" + EARLIEST + " to " + LATEST + "), but was " + value);
        }
        return value;
    }

    /**
     * {@code value} moved into the years 1 to 9999: the same bound for a filter on times Runlane stored, which all
     * come from the database clock, so that {@code Instant.MIN} and {@code Instant.MAX} can stand for "no bound".
     */
    public static @Nullable Instant clamp(@Nullable Instant value) {
        if (value == null) {
            return null;
        }
        return value.isBefore(EARLIEST) ? EARLIEST : value.isAfter(LATEST) ? LATEST : value;
    }
}

package io.runlane;

import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * How long a finished owner keeps its idempotency key (S-IK-3..6): a positive duration, or {@link #active()} to
 * release the key as soon as the owner reaches any terminal status. The TTL never expires an active owner.
 */
public final class IdempotencyKeyTtl {

    private static final String ACTIVE = "active";

    private static final IdempotencyKeyTtl ACTIVE_TTL = new IdempotencyKeyTtl(null);

    private final @Nullable Duration duration;

    private IdempotencyKeyTtl(@Nullable Duration duration) {
        this.duration = duration;
    }

    /** Retains a finished owner for this positive duration. */
    public static IdempotencyKeyTtl of(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero()) {
            throw new ConfigurationInvalidException(
                    "idempotencyKeyTtl", "must be a positive duration or 'active', but was " + duration);
        }
        return new IdempotencyKeyTtl(duration);
    }

    /** Keeps the key only while the owner is active. */
    public static IdempotencyKeyTtl active() {
        return ACTIVE_TTL;
    }

    /**
     * Parses {@code active} or a duration with a unit suffix ({@code ms}, {@code s}, {@code m}, {@code h},
     * {@code d}), such as {@code 24h} or {@code 7d}.
     *
     * @throws ConfigurationInvalidException naming the value when it is neither
     */
    public static IdempotencyKeyTtl parse(String value) {
        Objects.requireNonNull(value, "value");
        String trimmed = value.trim();
        if (trimmed.toLowerCase(Locale.ROOT).equals(ACTIVE)) {
            return ACTIVE_TTL;
        }
        if (trimmed.isEmpty() || !Character.isLetter(trimmed.charAt(trimmed.length() - 1))) {
            throw invalid(value, null);
        }
        Duration parsed;
        try {
            parsed = DurationFormatterUtils.parse(trimmed, DurationFormat.Style.SIMPLE);
        } catch (RuntimeException ex) {
            throw invalid(value, ex);
        }
        if (parsed.isNegative() || parsed.isZero()) {
            throw invalid(value, null);
        }
        return new IdempotencyKeyTtl(parsed);
    }

    private static ConfigurationInvalidException invalid(String value, @Nullable Throwable cause) {
        return new ConfigurationInvalidException(
                "idempotencyKeyTtl",
                "must be 'active' or a positive duration such as '30s', '15m', '24h' or '7d', but was '" + value + "'",
                cause);
    }

    /** Whether the key is released as soon as the owner is terminal. */
    public boolean isActive() {
        return duration == null;
    }

    /** The retention after the owner finishes, or {@code null} in {@code active} mode. */
    public @Nullable Duration duration() {
        return duration;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof IdempotencyKeyTtl that && Objects.equals(duration, that.duration);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(duration);
    }

    /** The TTL as {@link #parse} reads it: {@code active}, or a duration in its largest exact unit such as {@code 24h}. */
    @JsonValue
    @Override
    public String toString() {
        if (duration == null) {
            return ACTIVE;
        }
        long millis = duration.toMillis();
        long[] unitMillis = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (millis % unitMillis[i] == 0) {
                return millis / unitMillis[i] + units[i];
            }
        }
        return millis + "ms";
    }
}

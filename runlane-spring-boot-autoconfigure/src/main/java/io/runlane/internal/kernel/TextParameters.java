package io.runlane.internal.kernel;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Optional identifiers and times as text, for a statement that casts them ({@code cast(:x AS uuid)}, {@code cast(:x
 * AS timestamptz)}). The PostgreSQL driver sends a {@code null} bound as {@code Types.OTHER} or as a timestamp with an
 * unspecified type; the server then has to describe such a statement, and from then on the driver sends a {@code
 * Sync} and waits for its answer before every execution of it that returns a text or JSON column: a second round
 * trip (S-OP-13). Text is typed whether or not it is {@code null}.
 */
public final class TextParameters {

    private TextParameters() {}

    public static @Nullable String uuid(@Nullable UUID id) {
        return id == null ? null : id.toString();
    }

    /**
     * ISO-8601 in UTC, rounded half up to the microsecond that PostgreSQL keeps, as the driver rounds a timestamp. A
     * year past 9999 goes without the sign that {@link Instant#toString()} gives it, which PostgreSQL would read as a
     * time zone.
     */
    public static @Nullable String timestamp(@Nullable Instant at) {
        if (at == null) {
            return null;
        }
        String text = at.plusNanos(500).truncatedTo(ChronoUnit.MICROS).toString();
        return text.startsWith("+") ? text.substring(1) : text;
    }
}

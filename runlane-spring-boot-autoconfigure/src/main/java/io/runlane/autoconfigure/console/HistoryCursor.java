package io.runlane.autoconfigure.console;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * The key of a page of {@link ConsoleHistory}, {@code version:part:part…}, handed to clients as an opaque string
 * (base64url); the last part may contain colons. A cursor of another list, or one this API did not return, fails
 * with {@link ConsoleRequestException}.
 */
record HistoryCursor(String[] parts) {

    static String encode(String version, Object... parts) {
        StringBuilder text = new StringBuilder(version);
        for (Object part : parts) {
            text.append(':').append(part);
        }
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    static HistoryCursor decode(String cursor, String version) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (!text.startsWith(version + ":")) {
                throw new IllegalArgumentException("another list's cursor");
            }
            return new HistoryCursor(text.substring(version.length() + 1).split(":", -1));
        } catch (IllegalArgumentException ex) {
            throw invalid();
        }
    }

    /** A sequence or attempt number: positive. */
    int intPart(int index) {
        try {
            int value = Integer.parseInt(part(index));
            if (value < 1) {
                throw invalid();
            }
            return value;
        } catch (NumberFormatException ex) {
            throw invalid();
        }
    }

    String instantPart(int index) {
        try {
            return Instant.EPOCH
                    .plus(Long.parseLong(part(index)), ChronoUnit.MICROS)
                    .toString();
        } catch (RuntimeException ex) {
            throw invalid();
        }
    }

    UUID uuidPart(int index) {
        try {
            return UUID.fromString(part(index));
        } catch (IllegalArgumentException ex) {
            throw invalid();
        }
    }

    /** The parts from {@code index} on, joined again: a step name may contain colons. */
    String rest(int index) {
        part(index);
        return String.join(":", List.of(parts).subList(index, parts.length));
    }

    private String part(int index) {
        if (index >= parts.length) {
            throw invalid();
        }
        return parts[index];
    }

    private static ConsoleRequestException invalid() {
        return new ConsoleRequestException("cursor is not one this API returned");
    }
}

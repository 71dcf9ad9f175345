package io.runlane.autoconfigure.actuate;

import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Reads the arguments of {@link RunlaneEndpoint}'s operations: path segments, run ids, statuses and durations. Input
 * it cannot read, and input Runlane itself rejects, fails with {@link InvalidEndpointRequestException}: a 400 over
 * HTTP whose reason is the message.
 */
final class RunlaneEndpointInput {

    private RunlaneEndpointInput() {}

    static UUID runId(String runId) {
        try {
            return UUID.fromString(runId);
        } catch (IllegalArgumentException ex) {
            throw badRequest("'" + runId + "' is not a run id", ex);
        }
    }

    static Duration duration(String name, String value) {
        String trimmed = value.trim();
        String message = name + " '" + value + "' is not a duration such as 7d, 12h or PT30M";
        if (trimmed.isEmpty() || !Character.isLetter(trimmed.charAt(trimmed.length() - 1))) {
            throw badRequest(message, null);
        }
        try {
            return DurationFormatterUtils.detectAndParse(trimmed);
        } catch (RuntimeException ex) {
            throw badRequest(message, ex);
        }
    }

    static Set<RunStatus> statuses(String name, String @Nullable [] values, Set<RunStatus> absent) {
        if (values == null || values.length == 0) {
            return absent;
        }
        Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
        for (String value : values) {
            try {
                statuses.add(RunStatus.valueOf(value.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException ex) {
                throw badRequest(name + " '" + value + "' is not one of " + Arrays.toString(RunStatus.values()), ex);
            }
        }
        return statuses;
    }

    /** Run sources by name, any case (S-OP-14); none when absent. */
    static Set<RunSource> sources(String name, String @Nullable [] values) {
        Set<RunSource> sources = EnumSet.noneOf(RunSource.class);
        if (values == null) {
            return sources;
        }
        for (String value : values) {
            try {
                sources.add(RunSource.valueOf(value.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException ex) {
                throw badRequest(name + " '" + value + "' is not one of " + Arrays.toString(RunSource.values()), ex);
            }
        }
        return sources;
    }

    static void requireSegment(String expected, String actual) {
        if (!expected.equals(actual)) {
            throw badRequest("Unknown operation '" + actual + "'; expected '" + expected + "'", null);
        }
    }

    /** Runs an operation, turning Runlane's rejections of the caller's input into a 400. */
    static <T> T rejectingInvalidInput(Supplier<T> operation) {
        try {
            return operation.get();
        } catch (InvalidKeyException | ConfigurationInvalidException ex) {
            throw badRequest(ex.getMessage(), ex);
        }
    }

    /** A 400 over HTTP; the reason is the message, which Boot puts in the error response. */
    static InvalidEndpointRequestException badRequest(String message, @Nullable Throwable cause) {
        return new InvalidEndpointRequestException(message, message, cause);
    }
}

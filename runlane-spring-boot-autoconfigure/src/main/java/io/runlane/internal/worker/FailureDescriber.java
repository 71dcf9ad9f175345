package io.runlane.internal.worker;

import io.runlane.RunFailure;
import io.runlane.RunlaneException;
import io.runlane.internal.kernel.TextSanitizer;

/**
 * Describes a failure for storage (S-EX-5): the exception's class and its message, truncated, with any U+0000
 * replaced so that PostgreSQL can store them (S-EX-25).
 */
final class FailureDescriber {

    public static final String EXCEPTION = "exception";

    private final int maxMessageLength;

    public FailureDescriber(int maxMessageLength) {
        this.maxMessageLength = maxMessageLength;
    }

    public RunFailure describe(Throwable failure) {
        String code = failure instanceof RunlaneException runlane ? runlane.code() : EXCEPTION;
        return new RunFailure(
                TextSanitizer.storable(code),
                TextSanitizer.storable(failure.getClass().getName()),
                truncate(TextSanitizer.storable(failure.getMessage())));
    }

    public RunFailure describe(String code, String message) {
        return new RunFailure(TextSanitizer.storable(code), null, truncate(TextSanitizer.storable(message)));
    }

    /** Truncates at a code point boundary, marking the cut with an ellipsis. */
    String truncate(String message) {
        if (message == null || message.codePointCount(0, message.length()) <= maxMessageLength) {
            return message;
        }
        int end = message.offsetByCodePoints(0, Math.max(0, maxMessageLength - 1));
        return message.substring(0, end) + "…";
    }
}

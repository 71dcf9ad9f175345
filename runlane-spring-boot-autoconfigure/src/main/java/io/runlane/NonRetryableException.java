package io.runlane;

import org.jspecify.annotations.Nullable;

/** Thrown by a handler to fail its run at once, without spending the rest of the retry budget (S-EX-4). */
public class NonRetryableException extends RunlaneException {

    public NonRetryableException(String message) {
        this(message, null);
    }

    public NonRetryableException(String message, @Nullable Throwable cause) {
        super("non_retryable", message, cause);
    }

    /** For failures that have their own error code and never retry. */
    protected NonRetryableException(String code, String message, @Nullable Throwable cause) {
        super(code, message, cause);
    }
}

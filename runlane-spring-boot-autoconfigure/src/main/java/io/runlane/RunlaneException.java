package io.runlane;

import org.jspecify.annotations.Nullable;

/** The base of every exception Runlane throws; {@link #code()} is stable and safe to match on. */
public class RunlaneException extends RuntimeException {

    private final String code;

    public RunlaneException(String code, String message) {
        this(code, message, null);
    }

    public RunlaneException(String code, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** A stable, lower-case error code such as {@code invalid_key}. */
    public String code() {
        return code;
    }
}

package io.runlane.internal.result;

import io.runlane.NonRetryableException;

/** A task's result is larger than {@code runlane.results.max-size}: the run fails at once (S-RS-5). */
public final class ResultTooLargeException extends NonRetryableException {

    public ResultTooLargeException(long bytes, long maxBytes) {
        super(
                "result_too_large",
                "The result is " + bytes + " bytes of JSON, more than runlane.results.max-size (" + maxBytes
                        + " bytes); nothing was stored",
                null);
    }
}

package io.runlane.internal.step;

import io.runlane.NonRetryableException;

/**
 * A recorded step result no longer converts to the type the handler asks for (S-ST-4): retrying cannot help, since
 * the record never changes, so the run fails at once with code {@code step_result_incompatible}.
 */
public final class StepResultIncompatibleException extends NonRetryableException {

    public StepResultIncompatibleException(String step, int occurrence, Class<?> type, Throwable cause) {
        super(
                "step_result_incompatible",
                "The recorded result of step '" + step + "' (occurrence " + occurrence + ") does not convert to "
                        + type.getName() + ": " + cause.getMessage(),
                cause);
    }
}

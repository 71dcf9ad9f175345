package io.runlane.autoconfigure.actuate;

import io.runlane.Run;

/**
 * Masks what a run carries from the application's callers (its payload and its result) unless the endpoint may show values
 * ({@code management.endpoint.runlane.show-values}), as Boot's own endpoints do with {@code ******}.
 */
final class RunValues {

    /** The mask, as JSON: the payload and the result are rendered raw. */
    static final String MASK = "\"******\"";

    private RunValues() {}

    static Run shownOrMasked(Run run, boolean showValues) {
        if (showValues) {
            return run;
        }
        return new Run(
                run.id(),
                run.taskId(),
                run.queue(),
                run.status(),
                run.idempotencyKey(),
                run.singletonKey(),
                run.attempts(),
                run.maxAttempts(),
                run.createdAt(),
                run.updatedAt(),
                run.runAt(),
                run.finishedAt(),
                run.failure(),
                MASK,
                run.sourceRunId(),
                run.concurrencyKey(),
                run.idempotencyKeyTtl(),
                run.sourceType(),
                run.resultJson() == null ? null : MASK);
    }
}

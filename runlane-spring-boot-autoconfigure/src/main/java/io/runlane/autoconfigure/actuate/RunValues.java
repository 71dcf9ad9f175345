package io.runlane.autoconfigure.actuate;

import io.runlane.Run;
import io.runlane.RunSignal;
import org.jspecify.annotations.Nullable;

/**
 * Masks what a run carries from the application's callers (its payload and its result) unless the endpoint may show values
 * ({@code management.endpoint.runlane.show-values}), as Boot's own endpoints do with {@code ******}. The console masks
 * with the same rules (S-CO-13).
 */
public final class RunValues {

    /** The mask, as JSON: the payload and the result are rendered raw. */
    public static final String MASK = "\"******\"";

    /** The mask of a value rendered as text, such as a stack trace. */
    public static final String TEXT_MASK = "******";

    private RunValues() {}

    public static Run shownOrMasked(Run run, boolean showValues) {
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
                run.resultJson() == null ? null : MASK,
                run.spentAttempts(),
                run.priority(),
                run.debounceKey(),
                run.scheduleId());
    }

    /**
     * A failure's stored stack trace (S-EX-35) is shown where values are: it holds the exception's message and those
     * of its causes, which often quote what the handler processed. Masked as {@code ******} (as text, not JSON);
     * {@code null} stays {@code null}.
     */
    public static @Nullable String failureStack(@Nullable String stackTrace, boolean showValues) {
        return showValues || stackTrace == null ? stackTrace : TEXT_MASK;
    }

    /** A signal's payload is a value too (S-SG-5). */
    public static RunSignal shownOrMasked(RunSignal signal, boolean showValues) {
        if (showValues) {
            return signal;
        }
        return new RunSignal(
                signal.id(), signal.name(), MASK, signal.sentAt(), signal.consumedAt(), signal.deduplicationKey());
    }
}

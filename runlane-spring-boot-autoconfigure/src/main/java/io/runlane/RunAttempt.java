package io.runlane;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a run, as its events record it: one call of the run's handler, from the claim that started it to
 * the event that ended it.
 *
 * @param runId the run
 * @param attempt the attempt number, starting at 1: {@link RunContext#attempt()} of that call (S-EX-14)
 * @param worker the worker that claimed it
 * @param startedAt when it was claimed (database clock)
 * @param endedAt when it ended, or {@code null} while it runs
 * @param outcome the run's status when the attempt ended, or {@code null} while it runs
 * @param endedBy what ended it: the event type ({@code SUCCEEDED}, {@code RETRY_SCHEDULED}, {@code LEASE_EXPIRED}, ...)
 * @param detail the failure message, release reason or what the run waits for, if any
 * @param resumption whether the attempt resumed the run after the attempt before it parked it, by a release or a
 *     durable wait (S-EX-6, S-ST-7, S-ST-10): it continues that attempt and spends no retry budget of its own, so
 *     {@link Run#spentAttempts()} does not count it (S-EX-34)
 */
public record RunAttempt(
        UUID runId,
        int attempt,
        String worker,
        Instant startedAt,
        @Nullable Instant endedAt,
        @Nullable RunStatus outcome,
        @Nullable RunEventType endedBy,
        @Nullable String detail,
        boolean resumption) {

    /** An attempt that did not resume a parked run. */
    public RunAttempt(
            UUID runId,
            int attempt,
            String worker,
            Instant startedAt,
            @Nullable Instant endedAt,
            @Nullable RunStatus outcome,
            @Nullable RunEventType endedBy,
            @Nullable String detail) {
        this(runId, attempt, worker, startedAt, endedAt, outcome, endedBy, detail, false);
    }
}

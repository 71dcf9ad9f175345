package io.runlane;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a run, as its events record it.
 *
 * @param runId the run
 * @param attempt the attempt number, starting at 1
 * @param worker the worker that claimed it
 * @param startedAt when it was claimed (database clock)
 * @param endedAt when it ended, or {@code null} while it runs
 * @param outcome the run's status when the attempt ended, or {@code null} while it runs
 * @param endedBy what ended it: the event type ({@code SUCCEEDED}, {@code RETRY_SCHEDULED}, {@code LEASE_EXPIRED}, ...)
 * @param detail the failure message or release reason, if any
 */
public record RunAttempt(
        UUID runId,
        int attempt,
        String worker,
        Instant startedAt,
        @Nullable Instant endedAt,
        @Nullable RunStatus outcome,
        @Nullable RunEventType endedBy,
        @Nullable String detail) {}

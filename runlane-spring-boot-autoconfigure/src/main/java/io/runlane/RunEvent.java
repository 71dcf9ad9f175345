package io.runlane;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a run's history, appended in the same transaction as the change it records (S-RL-2).
 *
 * @param runId the run
 * @param sequence the per-run sequence number, starting at 1
 * @param type what happened
 * @param status the run's status after the event
 * @param createdAt when it happened (database clock)
 * @param actor who caused it, when known ({@code runlane} for the engine itself)
 * @param detail a reason or failure message, if any
 */
public record RunEvent(
        UUID runId,
        int sequence,
        RunEventType type,
        RunStatus status,
        Instant createdAt,
        @Nullable String actor,
        @Nullable String detail) {}

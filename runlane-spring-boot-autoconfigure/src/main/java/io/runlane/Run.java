package io.runlane;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one run as stored when it was read.
 *
 * @param id the run id, stable across attempts
 * @param taskId the task id
 * @param queue the queue
 * @param status the status
 * @param idempotencyKey the idempotency key, if any
 * @param singletonKey the singleton key, if any
 * @param attempts attempts started so far: every call of the handler, resumptions included, as {@link
 *     RunContext#attempt()} counts them (S-EX-14)
 * @param maxAttempts the attempt budget, counting the first
 * @param createdAt when the run was stored (database clock)
 * @param updatedAt when the run last changed (database clock)
 * @param runAt when the run is due, if it is waiting
 * @param finishedAt when the run became terminal
 * @param failure the last failure, if any
 * @param payloadJson the payload as stored JSON
 * @param sourceRunId the run this one was rerun, retried or forked from
 * @param concurrencyKey the concurrency key, if any
 * @param idempotencyKeyTtl the retention captured when the run was created, if it has an idempotency key
 * @param sourceType how this run was derived from {@code sourceRunId}: {@code RERUN}, {@code RETRY} or {@code FORK}
 * @param resultJson a {@link TaskFunction}'s result as JSON, stored when the run succeeded (S-RS-1)
 * @param spentAttempts the attempts that count against {@code maxAttempts} (S-EX-34): the attempts that did not end
 *     by parking the run (a release or a durable wait, which spend no budget, S-EX-6, S-ST-10), and, while the run
 *     waits to resume, the attempt it resumes. What "N of maxAttempts" means: a run that waited for five signals and
 *     succeeded has 6 attempts and 1 spent attempt
 * @param priority the run's priority, from -100 to 100 (S-PR-1, S-PR-3): among a queue's due runs a higher one is
 *     claimed first
 * @param debounceKey the debounce key its triggers fold under (S-DB-1), if it was created by a debounced trigger
 * @param scheduleId the schedule that fired it, or whose trigger-now created it (S-OP-14); {@code null} for every
 *     other run, and for runs fired before the schedule was recorded (changeset {@code 022-run-schedule-id.sql})
 */
public record Run(
        UUID id,
        String taskId,
        String queue,
        RunStatus status,
        @Nullable String idempotencyKey,
        @Nullable String singletonKey,
        int attempts,
        int maxAttempts,
        Instant createdAt,
        Instant updatedAt,
        @Nullable Instant runAt,
        @Nullable Instant finishedAt,
        @Nullable RunFailure failure,
        @JsonRawValue String payloadJson,
        @Nullable UUID sourceRunId,
        @Nullable String concurrencyKey,
        @Nullable IdempotencyKeyTtl idempotencyKeyTtl,
        @Nullable String sourceType,
        @JsonRawValue @Nullable String resultJson,
        int spentAttempts,
        int priority,
        @Nullable String debounceKey,
        @Nullable String scheduleId) {

    /**
     * How the run came to be (S-OP-14): its {@link #sourceType()} if it was derived from another run, else {@code
     * SCHEDULE} if a schedule created it, else {@code TRIGGER}.
     */
    public RunSource source() {
        if (sourceType != null) {
            return RunSource.valueOf(sourceType);
        }
        return scheduleId != null ? RunSource.SCHEDULE : RunSource.TRIGGER;
    }

    /** When a terminal owner's idempotency retention ends, or {@code null} while active or without a key. */
    public @Nullable Instant idempotencyRetainedUntil() {
        if (finishedAt == null || idempotencyKeyTtl == null || status == RunStatus.FAILED) {
            return null;
        }
        Duration ttl = idempotencyKeyTtl.duration();
        return ttl == null ? finishedAt : finishedAt.plus(ttl);
    }
}

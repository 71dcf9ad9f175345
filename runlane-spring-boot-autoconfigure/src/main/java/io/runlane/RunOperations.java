package io.runlane;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** Reads runs of the configured environment (S-OP-1). */
public interface RunOperations {

    /** The run with this id, or empty when there is none in this environment. */
    Optional<Run> get(UUID runId);

    /** Runs matching the query, newest first, one page at a time (S-OP-1). */
    Page<Run> list(RunQuery query);

    /** The run's events in sequence order; fails with {@link RunNotFoundException} for an unknown run. */
    List<RunEvent> events(UUID runId);

    /** The run's attempts in order, derived from its events; fails with {@link RunNotFoundException}. */
    List<RunAttempt> attempts(UUID runId);

    /**
     * An active run of the task holding the given idempotency key or singleton key (at least one must be given).
     * Advisory: the answer may be stale by the time it is used; use a trigger to act on it atomically.
     */
    Optional<Run> findActive(String taskId, @Nullable String idempotencyKey, @Nullable String singletonKey);

    /**
     * The current owner of an idempotency key, active or still retained, exactly as a duplicate trigger would
     * return it (S-IK-2, S-IK-3, S-IK-10).
     */
    Optional<Run> findCurrent(String taskId, String idempotencyKey);

    /**
     * Cancels a run (S-CA-1..4): a waiting run becomes {@code CANCELLED} at once; a running one becomes {@code
     * CANCELLATION_REQUESTED} and its handler sees that through {@link RunContext#isCancellationRequested()} within
     * one heartbeat; a terminal run is returned unchanged. The reason is recorded in the run's event.
     *
     * @throws RunNotFoundException when there is no such run in this environment
     */
    Run cancel(UUID runId, @Nullable String reason);

    /**
     * Creates a new run of a terminal run's task and payload, linked to it (source type {@code RERUN}), and leaves
     * the source untouched (S-OP-2). The stored payload is validated again. The new run has no idempotency or
     * singleton key, and keeps the source's queue and concurrency key unless the options override them (S-OP-9).
     *
     * @throws RunNotFoundException for an unknown run
     * @throws RunStateException when the source is still active
     * @throws TaskNotFoundException when this application no longer has the task
     * @throws PayloadValidationException when the stored payload is no longer valid
     */
    default Run rerun(UUID runId) {
        return rerun(runId, TriggerOptions.none());
    }

    /** Like {@link #rerun(UUID)}, with the given keys, queue or delay for the new run. */
    Run rerun(UUID runId, TriggerOptions options);

    /**
     * Puts a {@code FAILED} or {@code CANCELLED} run back to {@code QUEUED} in place (S-RV-1): the same run id, payload
     * and keys, its recorded steps, which replay, and their step ids, with a fresh attempt budget; it appends a
     * {@link RunEventType#RESUMED} event. The step that failed runs again with the same step id, so an external API
     * called with it deduplicates an in-doubt call. Unlike {@link #retry(UUID)} no new run is created. The run re-takes
     * its keys atomically (S-RV-2); concurrent resumes of one run resume it once, the others fail with {@link
     * RunStateException}.
     *
     * @return the queued run
     * @throws RunNotFoundException for an unknown run
     * @throws RunStateException when the run is active or {@code SUCCEEDED}, or its last attempt may still execute
     * @throws IdempotencyKeyActiveException when another run now owns the run's idempotency key
     * @throws SingletonConflictException when another active run holds the run's singleton key
     * @throws TaskNotFoundException when this application no longer has the task
     */
    Run resume(UUID runId);

    /**
     * Creates a new run of a terminal run's task and payload, linked to it (source type {@code FORK}), that starts
     * with a copy of the steps the source recorded before the step named {@code fromStep}, in recording order
     * ({@code null}: every recorded step) (S-RV-3). The copied steps replay: the new run's handler gets their recorded
     * results without calling their functions. The step named {@code fromStep} and every step after it run again,
     * with the new run's step ids. A step that failed was never recorded; fork with {@code null} to run it again
     * after every step the source recorded. The run and its copied steps are created in one transaction (the
     * caller's, if one is active), so no worker claims the run before its steps exist, and a failed copy leaves no
     * run. Keys and partition as for {@link #rerun(UUID)} (S-OP-9): no idempotency or singleton key, the source's
     * queue and concurrency key.
     *
     * @param fromStep the first step to run again, by name (from its first recorded occurrence); {@code null} to
     *     replay every recorded step
     * @return the new run
     * @throws RunNotFoundException for an unknown run
     * @throws RunStateException when the source is still active
     * @throws StepNotFoundException when the source recorded no step named {@code fromStep}; nothing is written
     * @throws TaskNotFoundException when this application no longer has the task
     * @throws PayloadValidationException when the stored payload is no longer valid
     */
    default Run fork(UUID runId, @Nullable String fromStep) {
        return fork(runId, fromStep, TriggerOptions.none());
    }

    /** Like {@link #fork(UUID, String)}, with the given keys, queue or delay for the new run. */
    Run fork(UUID runId, @Nullable String fromStep, TriggerOptions options);

    /**
     * Resumes, as {@link #resume(UUID)} would one by one, the {@code FAILED} and {@code CANCELLED} runs the query
     * selects (S-RV-4): its filters as {@link #list(RunQuery)} applies them, its statuses narrowed to those two, newest
     * first from the query's cursor, at most {@code maxRuns} (the query's {@code limit} is not used). The runs are read
     * in bounded batches and each is resumed in a transaction of its own; a run another transaction holds at that
     * moment is skipped ({@value BulkResult#LOCKED}), not waited for, and a run that a single resume would refuse is
     * skipped with that exception's code, without stopping the others. Call it outside a transaction of your own.
     *
     * @return how many runs matched, how many were resumed, and which were skipped, with the reason
     * @throws ConfigurationInvalidException when {@code maxRuns} is not between 1 and {@value BulkResult#MAX_RUNS}, or
     *     the query names only statuses that cannot be resumed; nothing is written then
     * @throws InvalidKeyException when a filter of the query is not a valid key
     */
    BulkResult resumeAll(RunQuery query, int maxRuns);

    /**
     * Cancels, as {@link #cancel(UUID, String)} would one by one, the active runs the query selects that are not
     * already asked to stop (S-RV-4): a waiting run becomes {@code CANCELLED}, a running one {@code
     * CANCELLATION_REQUESTED}, with the reason {@code cancelled in bulk}. Selection, bounds, batches, locked rows and
     * refusals as for {@link #resumeAll(RunQuery, int)}.
     *
     * @return how many runs matched, how many were cancelled or asked to stop, and which were skipped, with the reason
     * @throws ConfigurationInvalidException when {@code maxRuns} is not between 1 and {@value BulkResult#MAX_RUNS}, or
     *     the query names only statuses that cannot be cancelled; nothing is written then
     * @throws InvalidKeyException when a filter of the query is not a valid key
     */
    BulkResult cancelAll(RunQuery query, int maxRuns);

    /** Like {@link #rerun(UUID)} for a {@code FAILED} run only (source type {@code RETRY}) (S-OP-2). */
    default Run retry(UUID runId) {
        return retry(runId, TriggerOptions.none());
    }

    /** Like {@link #retry(UUID)}, with the given keys, queue or delay for the new run. */
    Run retry(UUID runId, TriggerOptions options);

    /**
     * The result of a {@code SUCCEEDED} run of a {@link TaskFunction}, read as {@code type}; empty while the run is
     * active, when it ended otherwise, or when its result is {@code null} (S-RS-2).
     *
     * @throws RunNotFoundException for an unknown run
     */
    <R> Optional<R> result(UUID runId, Class<R> type);

    /**
     * Blocks until the run is terminal and returns its result (S-RS-2). Woken by the notifications that wake
     * workers, with polling as the fallback; a run that already ended is answered at once.
     *
     * @throws RunFailedException when the run failed, with its failure
     * @throws RunCancelledException when the run was cancelled
     * @throws RunAwaitTimeoutException when the run is still active after {@code timeout}
     * @throws RunNotFoundException for an unknown run
     */
    <R> R awaitResult(UUID runId, Class<R> type, Duration timeout);

    /**
     * The run's completed steps in completion order (S-ST-6).
     *
     * @throws RunNotFoundException for an unknown run
     */
    List<RunStep> steps(UUID runId);

    /**
     * The run's signals in the order they were sent, with their consumption time (S-SG-5).
     *
     * @throws RunNotFoundException for an unknown run
     */
    List<RunSignal> signals(UUID runId);

    /** Deletes terminal runs with their events and key ownership, in bounded batches (S-OP-3, S-IK-9). */
    PruneResult prune(PruneRequest request);
}

package io.runlane.internal.worker;

import io.runlane.PayloadValidationException;
import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.FailedRuns;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.step.AttemptSteps;
import io.runlane.internal.step.DurableExecution;
import io.runlane.internal.wait.WaitRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Executes one attempt of a claimed run and records its outcome, fenced by the claim's token (S-EX-3):
 *
 * <ol>
 *   <li>read the payload back and validate it again; if that fails the run fails at once with {@code
 *       payload_invalid}, without calling the handler (S-ID-4); any other failure before the handler (unknown task,
 *       a class that cannot be loaded, a broken validator) fails it at once with {@code attempt_preparation_failed}
 *       (S-EX-22);
 *   <li>call the handler, with the attempt's durable steps ({@link AttemptSteps}, S-ST); afterwards the thread's interrupt flag is cleared, so an interrupt meant for this
 *       attempt never reaches the next one on the same thread (S-EX-22);
 *   <li>asked to wait (a sleep or an await, even if it then swallowed the signal): park the run as {@code WAITING}
 *       (S-ST-7, S-RS-4); a step found the attempt fenced out: end without an outcome (S-ST-3);
 *   <li>returned: complete, storing a task function's result (S-RS-1; too large: fail at once, S-RS-5), or release
 *       if the handler asked for it (S-EX-6); threw: retry after the policy's delay or fail (S-EX-4, S-EX-5),
 *       storing the exception's bounded stack trace (S-EX-35). A run whose cancellation was requested ends {@code
 *       CANCELLED} when the handler returns and {@code FAILED} when it throws (S-CA-2).
 * </ol>
 *
 * An outcome refused because the lease was lost is logged and dropped: the run's newer state wins. An outcome the
 * database does not take is written again until it does (S-EX-20). An attempt that ran past its timeout already
 * has its outcome ({@link AttemptTimeouts}); whatever its handler does later is not recorded.
 */
final class AttemptRunner {

    private static final Log logger = LogFactory.getLog(AttemptRunner.class);

    /** The code of a run failed because its attempt could not be prepared (S-EX-22). */
    static final String ATTEMPT_PREPARATION_FAILED = "attempt_preparation_failed";

    private final TaskRegistry tasks;

    private final PayloadCodec payloads;

    private final AttemptOutcomes outcomes;

    private final RetryPolicy retries;

    private final FailureDescriber failures;

    private final EngineListener listener;

    private final TransactionTemplate transactions;

    private final CompletionWriter completions;

    private final OutcomeRetries outcomeRetries;

    private final RefusedOutcomes refusals;

    private final DurableExecution durable;

    /** Set before the worker starts; read by handler threads. */
    private volatile HandlerInvocation invocation = HandlerInvocation.DIRECT;

    void setInvocation(HandlerInvocation invocation) {
        this.invocation = invocation;
    }

    AttemptRunner(
            TaskRegistry tasks,
            PayloadCodec payloads,
            AttemptOutcomes outcomes,
            RetryPolicy retries,
            FailureDescriber failures,
            EngineListener listener,
            TransactionTemplate transactions,
            CompletionWriter completions,
            OutcomeRetries outcomeRetries,
            RefusedOutcomes refusals,
            DurableExecution durable) {
        this.durable = durable;
        this.outcomeRetries = outcomeRetries;
        this.refusals = refusals;
        this.transactions = transactions;
        this.completions = completions;
        this.tasks = tasks;
        this.payloads = payloads;
        this.outcomes = outcomes;
        this.retries = retries;
        this.failures = failures;
        this.listener = listener;
    }

    /**
     * Runs the attempt and records its outcome. A completion goes to the {@link CompletionWriter}, which records it
     * together with those of other slots, and the slot is free at once. Any other outcome is recorded in one
     * transaction with {@code followUp}, which may claim the slot's next run; if that transaction fails, the outcome
     * is recorded again on its own until the database answers (S-EX-20), so a failing claim or a database blip never
     * loses an outcome.
     *
     * @return the run claimed for this slot, if any
     */
    @Nullable
    ClaimedRun run(AttemptContext context, String worker, Supplier<@Nullable ClaimedRun> followUp) {
        ClaimedRun claimed = context.claimed();
        Run run = claimed.run();
        long started = System.nanoTime();
        TaskDefinition task;
        Object payload;
        try {
            task = tasks.require(run.taskId());
            payload = payloads.fromJson(task, run.payloadJson());
        } catch (PayloadValidationException ex) {
            logger.warn(
                    "Run " + run.id() + " of task '" + run.taskId() + "' has an invalid payload: " + ex.getMessage());
            return record(
                    context,
                    () -> outcomes.failIfHeld(
                            run.id(), claimed.fencingToken(), worker, failures.describe(ex), null, null),
                    started,
                    "payload_invalid",
                    followUp);
        } catch (Throwable ex) {
            return failPreparation(context, worker, followUp, started, ex);
        }
        AttemptSteps steps = durable.open(claimed, worker);
        context.steps(steps);
        Throwable failure = null;
        context.handlerStarted();
        steps.handlerStarted();
        try {
            Object typed = payload;
            invocation.invoke(claimed, context.attempt(), () -> task.handler().run(typed, context));
        } catch (Throwable ex) {
            failure = ex;
        } finally {
            context.handlerEnded();
            steps.handlerEnded();
        }
        if (context.timedOut()) {
            logger.warn("Attempt " + context.attempt() + " of run " + run.id() + " returned after its timeout; its"
                    + " outcome was already recorded as " + AttemptTimeouts.ATTEMPT_TIMEOUT);
            return null;
        }
        if (steps.fencedOut()) {
            record(context, Optional.empty(), started, "step_fenced_out");
            return null;
        }
        WaitRequest wait = steps.suspension();
        if (wait != null) {
            return record(
                    context,
                    () -> durable.parking().parkIfHeld(run.id(), claimed.fencingToken(), worker, wait),
                    started,
                    "waiting",
                    followUp);
        }
        if (failure == null && context.returnedResult()) {
            try {
                context.resultJson(durable.codec().writeTaskResult(context.result()));
            } catch (RuntimeException ex) {
                failure = ex;
            }
        }
        if (failure == null) {
            AttemptContext.Release release = context.requestedRelease();
            if (release == null) {
                completions.submit(context, started);
                return null;
            }
            return record(
                    context,
                    () -> outcomes.releaseIfHeld(
                            run.id(), claimed.fencingToken(), worker, release.delay(), release.reason()),
                    started,
                    "released",
                    followUp);
        }
        if (failure instanceof Error error && !(failure instanceof AssertionError)) {
            logger.error("Run " + run.id() + " of task '" + run.taskId() + "' threw an error", error);
        } else {
            logger.warn(
                    "Attempt " + run.attempts() + " of run " + run.id() + " (task '" + run.taskId() + "') failed",
                    failure);
        }
        Duration retryDelay = retries.retryDelay(task, claimed, failure);
        RunFailure described = failures.describe(failure);
        String stackTrace = BoundedStackTrace.of(failure);
        return record(
                context,
                () -> outcomes.failIfHeld(run.id(), claimed.fencingToken(), worker, described, stackTrace, retryDelay),
                started,
                retryDelay == null ? "failed" : "retried",
                followUp);
    }

    /**
     * Something other than the handler failed before it could be called: the task is unknown here, its payload
     * class cannot be loaded, or the validator itself broke. Another attempt would fail the same way, so the run
     * fails at once with {@value #ATTEMPT_PREPARATION_FAILED} (S-EX-22) instead of waiting for its lease to expire.
     */
    private @Nullable ClaimedRun failPreparation(
            AttemptContext context,
            String worker,
            Supplier<@Nullable ClaimedRun> followUp,
            long started,
            Throwable ex) {
        ClaimedRun claimed = context.claimed();
        logger.error(
                "Preparing attempt " + context.attempt() + " of run " + context.runId() + " (task '" + context.taskId()
                        + "') failed; the run fails without calling its handler",
                ex);
        RunFailure failure =
                failures.describe(ATTEMPT_PREPARATION_FAILED, ex.getClass().getName() + ": " + ex.getMessage());
        String stackTrace = BoundedStackTrace.of(ex);
        return record(
                context,
                () -> outcomes.failIfHeld(context.runId(), claimed.fencingToken(), worker, failure, stackTrace, null),
                started,
                ATTEMPT_PREPARATION_FAILED,
                followUp);
    }

    private record Recorded(Optional<Run> after, @Nullable ClaimedRun next) {}

    private @Nullable ClaimedRun record(
            AttemptContext context,
            Supplier<Optional<Run>> outcome,
            long startedNanos,
            String result,
            Supplier<@Nullable ClaimedRun> followUp) {
        Recorded recorded;
        try {
            recorded = transactions.execute(status -> new Recorded(outcome.get(), followUp.get()));
        } catch (RuntimeException ex) {
            logger.warn(
                    "Recording run " + context.runId() + " with its follow-up claim failed; recording it alone", ex);
            Optional<Optional<Run>> answer = outcomeRetries.untilAnswered(
                    "outcome '" + result + "' of run " + context.runId(), outcome, () -> !context.leaseLost());
            if (answer.isEmpty()) {
                return null;
            }
            recorded = new Recorded(answer.get(), null);
        }
        recorded.after().ifPresent(FailedRuns::logIfFailed);
        record(context, recorded.after().map(Run::status), startedNanos, result);
        return recorded.next();
    }

    private void record(AttemptContext context, Optional<RunStatus> after, long startedNanos, String result) {
        Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
        if (after.isEmpty()) {
            listener.attemptEnded(context.claimed(), refusals.refused(context, "Outcome '" + result + "'"), took);
            return;
        }
        listener.attemptEnded(context.claimed(), CompletionWriter.resultOf(after.get()), took);
    }
}

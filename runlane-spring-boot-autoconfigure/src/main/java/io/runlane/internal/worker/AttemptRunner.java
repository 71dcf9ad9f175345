package io.runlane.internal.worker;

import io.runlane.PayloadValidationException;
import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import io.runlane.internal.EngineListener;
import io.runlane.internal.jdbc.AttemptOutcomes;
import io.runlane.internal.jdbc.ClaimedRun;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.result.FunctionTaskHandler;
import io.runlane.internal.step.AttemptSteps;
import io.runlane.internal.step.DurableExecution;
import io.runlane.internal.trigger.PayloadCodec;
import io.runlane.internal.wait.WaitRequest;
import java.time.Duration;
import java.util.Locale;
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
 *       payload_invalid}, without calling the handler (S-ID-4);
 *   <li>call the handler, with the attempt's durable steps ({@link AttemptSteps}, S-ST);
 *   <li>asked to wait (a sleep or an await, even if it then swallowed the signal): park the run as {@code WAITING}
 *       (S-ST-7, S-RS-4); a step found the attempt fenced out: end without an outcome (S-ST-3);
 *   <li>returned: complete, storing a task function's result (S-RS-1, too large: fail at once, S-RS-5), or release
 *       if the handler asked for it (S-EX-6); threw: retry after the policy's delay
 *       or fail (S-EX-4, S-EX-5). A run whose cancellation was requested ends {@code CANCELLED} when the handler
 *       returns and {@code FAILED} when it throws (S-CA-2).
 * </ol>
 *
 * An outcome refused because the lease was lost is logged and dropped: the run's newer state wins.
 */
final class AttemptRunner {

    private static final Log logger = LogFactory.getLog(AttemptRunner.class);

    private final TaskRegistry tasks;

    private final PayloadCodec payloads;

    private final AttemptOutcomes outcomes;

    private final RetryPolicy retries;

    private final FailureDescriber failures;

    private final EngineListener listener;

    private final TransactionTemplate transactions;

    private final CompletionWriter completions;

    private final DurableExecution durable;

    AttemptRunner(
            TaskRegistry tasks,
            PayloadCodec payloads,
            AttemptOutcomes outcomes,
            RetryPolicy retries,
            FailureDescriber failures,
            EngineListener listener,
            TransactionTemplate transactions,
            CompletionWriter completions,
            DurableExecution durable) {
        this.durable = durable;
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
     * is recorded again on its own, so a failing claim never loses an outcome.
     *
     * @return the run claimed for this slot, if any
     */
    @Nullable
    ClaimedRun run(AttemptContext context, String worker, Supplier<@Nullable ClaimedRun> followUp) {
        ClaimedRun claimed = context.claimed();
        Run run = claimed.run();
        TaskDefinition task = tasks.require(run.taskId());
        long started = System.nanoTime();
        Object payload;
        try {
            payload = payloads.fromJson(task, run.payloadJson());
        } catch (PayloadValidationException ex) {
            logger.warn(
                    "Run " + run.id() + " of task '" + run.taskId() + "' has an invalid payload: " + ex.getMessage());
            return record(
                    context,
                    () -> outcomes.failIfHeld(run.id(), claimed.fencingToken(), worker, failures.describe(ex), null),
                    started,
                    "payload_invalid",
                    followUp);
        }
        AttemptSteps steps = durable.open(claimed, worker);
        context.steps(steps);
        Throwable failure = null;
        steps.handlerStarted();
        try {
            task.handler().run(payload, context);
        } catch (Throwable ex) {
            failure = ex;
        } finally {
            steps.handlerEnded();
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
        if (failure == null && task.handler() instanceof FunctionTaskHandler) {
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
        return record(
                context,
                () -> outcomes.failIfHeld(run.id(), claimed.fencingToken(), worker, described, retryDelay),
                started,
                retryDelay == null ? "failed" : "retried",
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
            recorded = new Recorded(outcome.get(), null);
        }
        record(context, recorded.after().map(Run::status), startedNanos, result);
        return recorded.next();
    }

    private void record(AttemptContext context, Optional<RunStatus> after, long startedNanos, String result) {
        Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
        if (after.isEmpty()) {
            logger.warn("Outcome '" + result + "' of run " + context.runId() + " attempt " + context.attempt()
                    + " was refused: the attempt no longer holds the run (lease lost or run cancelled)");
            listener.attemptEnded(context.claimed(), "lease_lost", took);
            return;
        }
        listener.attemptEnded(context.claimed(), after.get().name().toLowerCase(Locale.ROOT), took);
    }
}

package io.runlane.internal.worker;

import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.FailedRuns;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Ends attempts that run longer than their timeout (S-EX-21), checked at every heartbeat:
 *
 * <ol>
 *   <li>the timeout is the task's ({@code @Task(timeout)}) or else {@code runlane.worker.attempt-timeout}; without
 *       either an attempt may run for ever;
 *   <li>the attempt fails with code {@value #ATTEMPT_TIMEOUT} in one statement fenced by its claim's token, and is
 *       retried or not by the task's retry policy like any failure; a failed write is tried again at the next
 *       heartbeat;
 *   <li>then its handler's thread is interrupted and the attempt is told to stop. Runlane never kills the thread:
 *       the slot stays busy until the handler returns, and whatever it returns is not recorded (the run has moved
 *       on, so the outcome would be refused anyway, S-EX-3).
 * </ol>
 */
final class AttemptTimeouts {

    private static final Log logger = LogFactory.getLog(AttemptTimeouts.class);

    /** The failure code of an attempt that ran past its timeout. */
    static final String ATTEMPT_TIMEOUT = "attempt_timeout";

    private final TaskRegistry tasks;

    private final ExecutionSettings execution;

    private final AttemptOutcomes outcomes;

    private final RetryPolicy retries;

    private final FailureDescriber failures;

    private final EngineListener listener;

    AttemptTimeouts(
            TaskRegistry tasks,
            ExecutionSettings execution,
            AttemptOutcomes outcomes,
            RetryPolicy retries,
            FailureDescriber failures,
            EngineListener listener) {
        this.tasks = tasks;
        this.execution = execution;
        this.outcomes = outcomes;
        this.retries = retries;
        this.failures = failures;
        this.listener = listener;
    }

    /** Fails and interrupts every attempt among {@code running} that has run past its timeout. */
    void enforce(Collection<AttemptContext> running, String worker) {
        for (AttemptContext context : running) {
            Duration timeout = timeout(context);
            Duration runningFor = context.runningFor();
            if (timeout == null || context.timedOut() || runningFor.compareTo(timeout) < 0) {
                continue;
            }
            try {
                timeOut(context, timeout, runningFor, worker);
            } catch (RuntimeException ex) {
                logger.warn(
                        "Recording the timeout of run " + context.runId() + " failed; retrying at the next"
                                + " heartbeat",
                        ex);
            }
        }
    }

    private void timeOut(AttemptContext context, Duration timeout, Duration runningFor, String worker) {
        TaskDefinition task = tasks.find(context.taskId()).orElse(null);
        Duration retryDelay = retries.retryDelay(task, context.claimed(), null);
        RunFailure failure = failures.describe(
                ATTEMPT_TIMEOUT,
                "attempt " + context.attempt() + " ran longer than its timeout of " + timeout
                        + "; its thread was interrupted");
        Optional<Run> after = outcomes.failIfHeld(
                context.runId(), context.claimed().fencingToken(), worker, failure, null, retryDelay);
        after.ifPresent(FailedRuns::logIfFailed);
        context.markTimedOut();
        context.interruptHandler();
        logger.warn("Attempt " + context.attempt() + " of run " + context.runId() + " (task '" + context.taskId()
                + "') ran longer than its timeout of " + timeout + "; "
                + (after.isEmpty()
                        ? "it no longer held the run"
                        : "recorded as " + after.get().status() + ", handler interrupted"));
        listener.attemptEnded(
                context.claimed(),
                after.map(run -> run.status().name().toLowerCase(Locale.ROOT)).orElse("lease_lost"),
                runningFor);
    }

    /**
     * Attempts among {@code running} still running past their timeout, or past the cancellation grace since this
     * worker learned their cancellation was requested: handlers that ignore interrupts and cancellation.
     */
    List<String> overdue(Collection<AttemptContext> running) {
        List<String> overdue = new ArrayList<>();
        for (AttemptContext context : running) {
            Duration timeout = timeout(context);
            Duration runningFor = context.runningFor();
            Duration cancelledFor = context.cancellationRequestedFor();
            if (timeout != null && runningFor.compareTo(timeout) > 0) {
                overdue.add("run " + context.runId() + " (task '" + context.taskId() + "') has run for " + runningFor
                        + ", past its timeout of " + timeout);
            } else if (cancelledFor != null && cancelledFor.compareTo(execution.cancellationGrace()) > 0) {
                overdue.add("run " + context.runId() + " (task '" + context.taskId() + "') has ignored its"
                        + " cancellation for " + cancelledFor + ", past the grace of "
                        + execution.cancellationGrace());
            }
        }
        return overdue;
    }

    private @Nullable Duration timeout(AttemptContext context) {
        Duration own = tasks.find(context.taskId()).map(TaskDefinition::timeout).orElse(null);
        return own != null ? own : execution.attemptTimeout();
    }
}

package io.runlane.internal.kernel;

import io.runlane.RunStatus;
import io.runlane.TriggerOutcome;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

/**
 * Observes the engine (metrics, tests): triggers, attempts and maintenance. Called on the engine's own threads; an
 * implementation must be quick and must not throw.
 */
public interface EngineListener {

    EngineListener NONE = new EngineListener() {};

    /** A trigger was answered. */
    default void triggered(String taskId, TriggerOutcome outcome) {}

    /** A trigger of the task was refused by its rate limit (S-RT-2); nothing was written. */
    default void rateLimited(String taskId) {}

    /** An attempt was claimed and is about to start. */
    default void attemptStarted(ClaimedRun claimed) {}

    /**
     * An attempt ended; {@code result} is the run's status after it in lower case ({@code succeeded}, {@code
     * retrying}, ...), or {@code lease_lost} when the outcome was refused.
     */
    default void attemptEnded(ClaimedRun claimed, String result, Duration duration) {}

    /**
     * A run became terminal outside an attempt's own outcome (an operator's cancel, a supersede, lease recovery, the
     * cancellation grace, a schedule's {@code CANCEL_OTHER}), after the change committed. Terminal attempt outcomes
     * (an attempt timeout included) arrive through {@link #attemptEnded}.
     */
    default void runEnded(UUID runId, RunStatus status) {}

    /**
     * A worker's heartbeat renewed {@code renewed} leases and skipped {@code skipped} whose rows another transaction
     * held (S-EX-16); those are renewed by a later heartbeat.
     */
    default void heartbeatSent(int renewed, int skipped) {}

    /**
     * A claim of a throttled task found {@code keys} of its throttle keys at their limit (S-TH-2): their due runs
     * wait for the window, holding no slot.
     */
    default void claimThrottled(String taskId, int keys) {}

    /** Maintenance recovered runs whose lease had expired. */
    default void leasesRecovered(int runs) {}

    /** Runs were pruned, by the automatic job or by an operator. */
    default void runsPruned(long runs, boolean automatic) {}

    /** A schedule's occurrence created or returned a run, {@code lag} after the occurrence's time (S-SC-2). */
    default void scheduleFired(String scheduleId, String taskId, Duration lag) {}

    /**
     * A schedule's occurrence was skipped, creating no run, for {@code reason}: the schedule's previous run was active
     * (S-SC-3), another run held the task's singleton key, or the task's rate limit refused the run (S-SC-10).
     */
    default void scheduleSkipped(String scheduleId, String taskId, ScheduleSkipReason reason) {}

    /**
     * Why a schedule's occurrence was skipped (S-SC-3, S-SC-10): the {@code reason} tag of {@code
     * runlane.schedule.skips}, so that an operator can tell an overlap from a rate limit that is set too low.
     */
    enum ScheduleSkipReason {
        /** {@code SKIP}: the schedule's previous run was still active (S-SC-3). */
        OVERLAP,
        /** Another active run held the task's singleton key (S-SC-10). */
        SINGLETON,
        /** The task's rate limit refused the run (S-SC-10, S-RT-3). */
        RATE_LIMITED;

        /** The tag value: the name in lower case. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

package io.runlane.internal.kernel;

import io.runlane.TriggerOutcome;
import java.time.Duration;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/** Tells several listeners about engine events; a listener that throws is logged and does not affect the attempt. */
public final class CompositeEngineListener implements EngineListener {

    private static final Log logger = LogFactory.getLog(CompositeEngineListener.class);

    private final List<EngineListener> listeners;

    private CompositeEngineListener(List<EngineListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    public static EngineListener of(List<EngineListener> listeners) {
        return listeners.isEmpty() ? NONE : new CompositeEngineListener(listeners);
    }

    @Override
    public void rateLimited(String taskId) {
        each(listener -> listener.rateLimited(taskId));
    }

    @Override
    public void triggered(String taskId, TriggerOutcome outcome) {
        each(listener -> listener.triggered(taskId, outcome));
    }

    @Override
    public void attemptStarted(ClaimedRun claimed) {
        each(listener -> listener.attemptStarted(claimed));
    }

    @Override
    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
        each(listener -> listener.attemptEnded(claimed, result, duration));
    }

    @Override
    public void runEnded(java.util.UUID runId, io.runlane.RunStatus status) {
        each(listener -> listener.runEnded(runId, status));
    }

    @Override
    public void heartbeatSent(int renewed, int skipped) {
        each(listener -> listener.heartbeatSent(renewed, skipped));
    }

    @Override
    public void claimThrottled(String taskId, int keys) {
        each(listener -> listener.claimThrottled(taskId, keys));
    }

    @Override
    public void leasesRecovered(int runs) {
        each(listener -> listener.leasesRecovered(runs));
    }

    @Override
    public void runsPruned(long runs, boolean automatic) {
        each(listener -> listener.runsPruned(runs, automatic));
    }

    @Override
    public void scheduleFired(String scheduleId, String taskId, Duration lag) {
        each(listener -> listener.scheduleFired(scheduleId, taskId, lag));
    }

    @Override
    public void scheduleSkipped(String scheduleId, String taskId, ScheduleSkipReason reason) {
        each(listener -> listener.scheduleSkipped(scheduleId, taskId, reason));
    }

    private void each(java.util.function.Consumer<EngineListener> call) {
        for (EngineListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException ex) {
                logger.warn("Engine listener " + listener + " failed", ex);
            }
        }
    }
}

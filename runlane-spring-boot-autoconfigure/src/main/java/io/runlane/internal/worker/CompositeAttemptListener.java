package io.runlane.internal.worker;

import io.runlane.internal.jdbc.ClaimedRun;
import java.time.Duration;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/** Tells several listeners about attempts; a listener that throws is logged and does not affect the attempt. */
public final class CompositeAttemptListener implements AttemptListener {

    private static final Log logger = LogFactory.getLog(CompositeAttemptListener.class);

    private final List<AttemptListener> listeners;

    private CompositeAttemptListener(List<AttemptListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    public static AttemptListener of(List<AttemptListener> listeners) {
        return listeners.isEmpty() ? NONE : new CompositeAttemptListener(listeners);
    }

    @Override
    public void attemptStarted(ClaimedRun claimed) {
        for (AttemptListener listener : listeners) {
            try {
                listener.attemptStarted(claimed);
            } catch (RuntimeException ex) {
                logger.warn("Attempt listener " + listener + " failed", ex);
            }
        }
    }

    @Override
    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
        for (AttemptListener listener : listeners) {
            try {
                listener.attemptEnded(claimed, result, duration);
            } catch (RuntimeException ex) {
                logger.warn("Attempt listener " + listener + " failed", ex);
            }
        }
    }
}

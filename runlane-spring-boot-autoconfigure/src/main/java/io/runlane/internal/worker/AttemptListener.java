package io.runlane.internal.worker;

import io.runlane.internal.jdbc.ClaimedRun;
import java.time.Duration;

/** Observes attempts (metrics, tests). Called on the attempt's thread; must be quick and must not throw. */
public interface AttemptListener {

    AttemptListener NONE = new AttemptListener() {};

    /** An attempt was claimed and is about to start. */
    default void attemptStarted(ClaimedRun claimed) {}

    /**
     * An attempt ended; {@code result} is the run's status after it in lower case, or {@code lease_lost} when the
     * outcome was refused.
     */
    default void attemptEnded(ClaimedRun claimed, String result, Duration duration) {}
}

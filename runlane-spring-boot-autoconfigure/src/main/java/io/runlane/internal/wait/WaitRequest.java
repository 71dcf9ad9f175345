package io.runlane.internal.wait;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Why and until when a run parks as {@code WAITING}. Every wake-up source moves the run's {@code run_at} to the
 * current time; {@code wakeAt} is the latest it sleeps (a durable sleep's end, or an await's deadline).
 *
 * @param wakeAt when the run is due again at the latest (database clock)
 * @param awaitingRunId the run whose end wakes it earlier, or {@code null}
 * @param reason the detail of the {@code WAITING} event
 */
public record WaitRequest(Instant wakeAt, @Nullable UUID awaitingRunId, String reason) {

    /** A durable sleep until {@code wakeAt} (S-ST-7). */
    public static WaitRequest until(Instant wakeAt, String reason) {
        return new WaitRequest(wakeAt, null, reason);
    }

    /** A wait for another run to end, at most until {@code deadline} (S-RS-4). */
    public static WaitRequest forRun(UUID runId, Instant deadline, String reason) {
        return new WaitRequest(deadline, runId, reason);
    }
}

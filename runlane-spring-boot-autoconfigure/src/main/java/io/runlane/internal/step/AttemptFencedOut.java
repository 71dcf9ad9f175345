package io.runlane.internal.step;

import java.util.UUID;

/**
 * Thrown on the handler's thread when the attempt tried to record a step but no longer holds its run's claim (its
 * lease was taken over, S-ST-3). It ends the attempt without an outcome: any outcome would be refused anyway, and
 * the run's current holder decides. An {@link Error} so that {@code catch (Exception ex)} in user code does not
 * keep a zombie running; without a stack trace, since it is control flow.
 */
public final class AttemptFencedOut extends Error {

    private static final long serialVersionUID = 1L;

    public AttemptFencedOut(UUID runId, String step) {
        super(
                "The attempt no longer holds run " + runId + "; step '" + step + "' was not recorded",
                null,
                false,
                false);
    }
}

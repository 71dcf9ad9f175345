package io.runlane;

/**
 * Told of every run that a worker of this application ended in a terminal status ({@code SUCCEEDED}, {@code FAILED},
 * {@code CANCELLED}), after the outcome is committed; declare beans of this type to alert or clean up without
 * polling. Called one run at a time on one Runlane thread, never on the handler's; an exception is logged and
 * ignored. For failures alone, an {@code @EventListener} of {@link RunFailedEvent} is enough.
 */
@FunctionalInterface
public interface RunOutcomeListener {

    /** {@code run} as stored after its last attempt, with its {@link Run#failure() failure} when it failed. */
    void runFinished(Run run);
}

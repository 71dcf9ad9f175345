package io.runlane;

/**
 * Told of every run that this application ended in a terminal status ({@code SUCCEEDED}, {@code FAILED}, {@code
 * CANCELLED}), after the outcome is committed; declare beans of this type to alert or clean up without polling.
 * "Ended" covers its worker's attempts (an attempt timeout included), its maintenance (a lease that expired with no
 * attempts left, a cancellation the handler ignored past the grace), a cancel through its {@link RunOperations} (a
 * queued run is cancelled at once; a running one when its handler stops), a trigger that supersedes a run, and a
 * schedule's {@code CANCEL_OTHER}. Each run is reported by the one instance that ended it; a cancel inside the
 * caller's transaction only once that commits. Called one run at a time on one Runlane thread, never on the
 * handler's or the caller's; an exception is logged and ignored. For failures alone, an {@code @EventListener} of
 * {@link RunFailedEvent} is enough.
 */
@FunctionalInterface
public interface RunOutcomeListener {

    /** {@code run} as stored after its last attempt, with its {@link Run#failure() failure} when it failed. */
    void runFinished(Run run);
}

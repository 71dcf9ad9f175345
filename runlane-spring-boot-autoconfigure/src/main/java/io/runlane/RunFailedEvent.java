package io.runlane;

/**
 * Published as a Spring application event when this application ended a run {@code FAILED} (its last attempt
 * failed or timed out, or maintenance found its lease expired with no attempts left), after the outcome is committed
 * (see {@link RunOutcomeListener} for every terminal outcome and every path that ends a run).
 *
 * @param run the run as stored, with its {@link Run#failure() failure}
 */
public record RunFailedEvent(Run run) {}

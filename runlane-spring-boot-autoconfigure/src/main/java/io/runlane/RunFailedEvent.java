package io.runlane;

/**
 * Published as a Spring application event when a worker of this application ended a run {@code FAILED}, after the
 * outcome is committed (see {@link RunOutcomeListener} for every terminal outcome).
 *
 * @param run the run as stored, with its {@link Run#failure() failure}
 */
public record RunFailedEvent(Run run) {}

package io.runlane;

/** What a schedule's occurrence does while the schedule's previous run is still active (S-SC-3). */
public enum OverlapPolicy {
    /** Creates nothing and counts the occurrence as skipped (the default). */
    SKIP,
    /** Creates the run anyway; runs of the schedule may overlap. */
    ALLOW,
    /** Cancels the previous run and creates the new one (S-SC-3, S-SC-6). */
    CANCEL_OTHER
}

package io.runlane.internal.trigger;

import io.runlane.internal.kernel.GroupCommit;

/**
 * The recent share of triggers that created a run rather than returned an existing one, as an exponentially weighted
 * average over roughly the last 32 answers. {@link GroupCommit} pays off for triggers that create runs (they share a
 * commit) and costs triggers that only find their key's owner (they share one statement instead of running side by
 * side), so triggers are grouped only while most of them create. Updates from racing threads may be lost; the average
 * only steers a choice between two correct paths.
 */
final class CreatedShare {

    private static final double WEIGHT = 1.0 / 32;

    private volatile double share = 1.0;

    /** Whether grouping is worth it: most recent triggers created their run. */
    boolean worthGrouping() {
        return share >= 0.5;
    }

    void record(boolean created) {
        share += WEIGHT * ((created ? 1.0 : 0.0) - share);
    }
}

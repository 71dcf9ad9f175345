package io.runlane.internal.jdbc;

import io.runlane.Run;

/**
 * A run claimed for one attempt: the snapshot after the claim and the fencing token the attempt must present to
 * complete, fail or release it (S-EX-3).
 */
public record ClaimedRun(Run run, long fencingToken, int releases) {

    /** Attempts that spent retry budget: releases do not (S-EX-6). */
    public int spentAttempts() {
        return run.attempts() - releases;
    }
}

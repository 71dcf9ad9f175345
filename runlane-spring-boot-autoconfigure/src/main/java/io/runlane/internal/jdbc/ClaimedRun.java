package io.runlane.internal.jdbc;

import io.runlane.Run;
import java.util.Map;

/**
 * A run claimed for one attempt: the snapshot after the claim and the fencing token the attempt must present to
 * complete, fail or release it (S-EX-3), with the trace context its trigger stored, which the attempt continues
 * (S-MO-9; empty when there is none).
 */
public record ClaimedRun(Run run, long fencingToken, int releases, Map<String, String> traceContext) {

    public ClaimedRun {
        traceContext = Map.copyOf(traceContext);
    }

    /** A claimed run without a trace context. */
    public ClaimedRun(Run run, long fencingToken, int releases) {
        this(run, fencingToken, releases, Map.of());
    }

    /** Attempts that spent retry budget: releases do not (S-EX-6). */
    public int spentAttempts() {
        return run.attempts() - releases;
    }
}

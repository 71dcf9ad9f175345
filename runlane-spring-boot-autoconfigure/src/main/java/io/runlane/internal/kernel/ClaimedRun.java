package io.runlane.internal.kernel;

import io.runlane.Run;
import java.util.Map;

/**
 * A run claimed for one attempt: the snapshot after the claim and the fencing token the attempt must present to
 * complete, fail or release it (S-EX-3), with the trace context its trigger stored, which the attempt continues
 * (S-MO-9; empty when there is none).
 *
 * <p>{@code claimSentNanos} is when the claim statement was sent, on this JVM's monotonic clock ({@link
 * System#nanoTime}). The database started the lease no earlier than that, so the lease left at any later moment is at
 * least the lease duration less the time since then, whatever the clocks of the two machines say; the worker starts
 * the handler only while enough is left (S-EX-30).
 */
public record ClaimedRun(
        Run run, long fencingToken, int releases, Map<String, String> traceContext, long claimSentNanos) {

    public ClaimedRun {
        traceContext = Map.copyOf(traceContext);
    }

    /** A run read back with its claim's token rather than claimed now: its claim counts as sent at this moment. */
    public ClaimedRun(Run run, long fencingToken, int releases) {
        this(run, fencingToken, releases, Map.of(), System.nanoTime());
    }

    /** Attempts that spent retry budget: releases do not (S-EX-6). */
    public int spentAttempts() {
        return run.attempts() - releases;
    }
}

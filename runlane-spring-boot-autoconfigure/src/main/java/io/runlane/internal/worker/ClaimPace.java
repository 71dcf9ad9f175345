package io.runlane.internal.worker;

/**
 * Whether a worker claims runs ahead of its free slots: only while its attempts end faster than a claim takes.
 *
 * <p>With short handlers the worker's throughput is bounded by claim round trips, not by its slots: each claim
 * fills the free slots, which are free again before the next claim returns. Claiming one run more per slot then
 * doubles what a round trip brings, and each run claimed ahead still starts within about one round trip, as if it
 * had been claimed when its slot freed. With longer handlers, a run claimed ahead would only wait under its lease
 * while other workers could run it, so the worker claims for its free slots alone.
 *
 * <p>Both durations are moving averages (each new sample weighs {@value #WEIGHT}), so one slow handler or claim does
 * not flip the decision.
 */
final class ClaimPace {

    static final double WEIGHT = 0.2;

    private double attemptNanos = Double.NaN;

    private double claimNanos = Double.NaN;

    /** An attempt held its slot this long, from its start until its slot could take the next run. */
    synchronized void attemptTook(long nanos) {
        attemptNanos = average(attemptNanos, nanos);
    }

    /** A claim took this long, from sending its statement until its runs were handed to slots. */
    synchronized void claimTook(long nanos) {
        claimNanos = average(claimNanos, nanos);
    }

    /** Whether the next claim may take runs for slots still busy: attempts end faster than claims return. */
    synchronized boolean claimAhead() {
        return attemptNanos <= claimNanos;
    }

    private static double average(double average, long sample) {
        return Double.isNaN(average) ? sample : average + WEIGHT * (sample - average);
    }
}

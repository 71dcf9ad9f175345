package io.runlane.internal.maintenance;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Paces a prune by the impact its batches measurably have: how long each one held its locks and wrote.
 *
 * <p>A batch deletes runs, their events, steps and keys in one transaction; while it runs it takes CPU, I/O and WAL
 * bandwidth that concurrent triggers and claims wait for, and its commit flushes all its WAL at once. So after each
 * batch the pass rests for {@link #restFactor} times as long as the batch took, which bounds the pruner's share of
 * the database to {@code 1 / (1 + restFactor)} however slow the database is at that moment; and the next batch is
 * sized so that its statement works about {@link #targetBatch} in the database (the round trip and the commit are
 * not counted: they do not grow with the batch): smaller when the last one took longer (a cold cache, a loaded
 * server), larger again, up to the requested size, when it was fast. A trigger that meets a batch therefore meets a
 * short one, and most meet none.
 */
final class PrunePacing {

    /** Pauses the calling thread; {@link Thread#sleep} outside tests. */
    interface Sleeper {

        void sleep(long nanos) throws InterruptedException;
    }

    /**
     * How long a batch should take. A trigger that commits while a batch runs also flushes the WAL the batch wrote
     * so far. Measured on the pruning benchmark (300,000 runs, same machine, alternating): with batches of 1,000 runs
     * (about 12 ms each, no rest) the triggers' p99 during pruning was 9.0 ms; with 3 ms batches and equal rests
     * 5.5 ms; with 2 ms batches 4.8 ms, at about a quarter of the unpaced deletion rate.
     */
    static final Duration TARGET_BATCH = Duration.ofMillis(2);

    /** The rest after a batch, relative to its duration: the pruner takes at most half the time. */
    static final double REST_FACTOR = 1.0;

    static final int MIN_BATCH = 10;

    /** How much one batch may grow the next: a fast batch on a warm cache does not mean a much larger one is. */
    static final int MAX_GROWTH = 2;

    private final int maxBatch;

    private final long targetBatch;

    private final double restFactor;

    private final Sleeper sleeper;

    private final LongSupplier nanoTime;

    private int batchSize;

    private long batchStarted;

    PrunePacing(int maxBatch) {
        this(maxBatch, TARGET_BATCH, REST_FACTOR, nanos -> TimeUnit.NANOSECONDS.sleep(nanos), System::nanoTime);
    }

    PrunePacing(int maxBatch, Duration targetBatch, double restFactor, Sleeper sleeper, LongSupplier nanoTime) {
        this.maxBatch = maxBatch;
        this.targetBatch = targetBatch.toNanos();
        this.restFactor = restFactor;
        this.sleeper = sleeper;
        this.nanoTime = nanoTime;
        this.batchSize = maxBatch;
    }

    /** The size of the next batch, never more than the requested one; marks the batch's start. */
    int startBatch() {
        batchStarted = nanoTime.getAsLong();
        return batchSize;
    }

    /** The current batch size, for tests. */
    int batchSize() {
        return batchSize;
    }

    /**
     * The batch that {@link #startBatch} started has ended: sizes the next one and rests in proportion to how long
     * this one took. When {@code more} is {@code false} (the pass ends) nothing is slept.
     *
     * @throws InterruptedException if interrupted while resting
     */
    void batchEnded(boolean more) throws InterruptedException {
        batchEnded(more, Long.MAX_VALUE);
    }

    /**
     * As {@link #batchEnded(boolean)}, sizing the next batch by {@code workNanos}, how long the batch's statement
     * worked in the database, when that is shorter than the batch took here. The round trip and the commit's flush
     * take about as long for ten runs as for a thousand; sized by them, batches on a server with slow commits would
     * shrink to the minimum and the pass would spend its time on commits, without being any gentler.
     *
     * @throws InterruptedException if interrupted while resting
     */
    void batchEnded(boolean more, long workNanos) throws InterruptedException {
        long took = Math.max(1, nanoTime.getAsLong() - batchStarted);
        long work = Math.max(1, Math.min(took, workNanos));
        double scaled = batchSize * ((double) targetBatch / work);
        batchSize = (int) Math.max(MIN_BATCH, Math.min(Math.min(maxBatch, (long) batchSize * MAX_GROWTH), scaled));
        batchSize = Math.min(batchSize, maxBatch);
        if (more && restFactor > 0) {
            sleeper.sleep((long) (took * restFactor));
        }
    }
}

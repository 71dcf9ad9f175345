package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A worker's slots and the runs claimed ahead for them.
 *
 * <p>A slot is a permit: a run starts only on a slot it holds, so at most {@code concurrency} attempts run at once.
 * A run claimed when no slot is free waits here, first in first out, for the next slot whose attempt ends ({@link
 * #next}). The worker claims such runs only while its slots free up faster than a claim takes ({@link ClaimPace}),
 * and never more than one per slot ({@link #capacity}), so a run claimed ahead is one a slot will take within about
 * a claim's round trip. A run that waited longer than expected anyway (every slot ran into long handlers) is
 * returned by {@link #takeWaitingSince} for the worker to hand back (S-EX-17), and on stop by {@link #close}.
 *
 * <p>Whoever adds a waiting run or frees a slot then starts waiting runs on free slots ({@link #startWaiting}), so
 * a run never waits while a slot is free: the last of the two to act sees the other's change.
 */
final class WorkerSlots {

    /** A run claimed ahead, and when ({@link System#nanoTime}). */
    private record Waiting(ClaimedRun run, long claimedNanos) {}

    private final int concurrency;

    private final Semaphore permits;

    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();

    /** Starts a run on a slot the caller acquired for it; must release the slot when it cannot start it. */
    private final Consumer<ClaimedRun> start;

    private final LongSupplier nanoTime;

    private volatile boolean open = true;

    WorkerSlots(int concurrency, Consumer<ClaimedRun> start) {
        this(concurrency, start, System::nanoTime);
    }

    WorkerSlots(int concurrency, Consumer<ClaimedRun> start, LongSupplier nanoTime) {
        this.concurrency = concurrency;
        this.permits = new Semaphore(concurrency);
        this.start = start;
        this.nanoTime = nanoTime;
    }

    /** Slots not running an attempt now. */
    int free() {
        return permits.availablePermits();
    }

    /** Runs claimed ahead, waiting for a slot. */
    int waiting() {
        return waiting.size();
    }

    /**
     * How many runs the next claim may take: one per free slot, and with {@code ahead} one more per slot, less the
     * runs already waiting.
     */
    int capacity(boolean ahead) {
        return Math.max(0, free() + (ahead ? concurrency : 0) - waiting());
    }

    /** The capacity with every slot free and nothing waiting. */
    int fullCapacity(boolean ahead) {
        return ahead ? 2 * concurrency : concurrency;
    }

    /**
     * Starts a claimed run on a free slot, or keeps it until a slot frees. Returns {@code false}, keeping nothing,
     * once closed: the caller hands the run back.
     */
    boolean accept(ClaimedRun run) {
        if (!open) {
            return false;
        }
        if (permits.tryAcquire()) {
            start.accept(run);
            return true;
        }
        waiting.add(new Waiting(run, nanoTime.getAsLong()));
        startWaiting();
        return true;
    }

    /**
     * Takes a free slot for a run a trigger is about to store claimed (S-EX-36), only while nothing waits for one:
     * a run claimed ahead keeps its turn. The caller then starts a run on it ({@link #startReserved}) or {@linkplain
     * #release releases} it.
     */
    boolean reserve() {
        return open && waiting.isEmpty() && permits.tryAcquire();
    }

    /** Starts a run on a slot {@link #reserve} took for it. */
    void startReserved(ClaimedRun run) {
        start.accept(run);
    }

    /**
     * The next waiting run for a slot whose attempt ended, which keeps its slot for it; {@code null} if none is
     * waiting or the slots are closed, and the caller then {@linkplain #release releases} the slot.
     */
    @Nullable
    ClaimedRun next() {
        if (!open) {
            return null;
        }
        Waiting next = waiting.poll();
        return next == null ? null : next.run();
    }

    /** Frees a slot whose attempt ended, then starts a waiting run on it if one arrived meanwhile. */
    void release() {
        permits.release();
        startWaiting();
    }

    /** Starts waiting runs on free slots while both last. */
    private void startWaiting() {
        while (open && !waiting.isEmpty() && permits.tryAcquire()) {
            Waiting next = waiting.poll();
            if (next == null) {
                // another slot took it; the loop checks again whether one arrived after that
                permits.release();
            } else {
                start.accept(next.run());
            }
        }
    }

    /** Removes and returns the runs that have waited since before {@code claimedBeforeNanos}. */
    List<ClaimedRun> takeWaitingSince(long claimedBeforeNanos) {
        List<ClaimedRun> taken = new ArrayList<>();
        for (Waiting candidate : waiting) {
            if (candidate.claimedNanos() - claimedBeforeNanos < 0 && waiting.remove(candidate)) {
                taken.add(candidate.run());
            }
        }
        return taken;
    }

    /** The runs waiting for a slot, whose leases the worker keeps extending. */
    Set<UUID> waitingRunIds() {
        Set<UUID> ids = new HashSet<>();
        waiting.forEach(candidate -> ids.add(candidate.run().run().id()));
        return ids;
    }

    /** Stops starting waiting runs and returns them, for the worker to hand back. */
    List<ClaimedRun> close() {
        open = false;
        List<ClaimedRun> left = new ArrayList<>();
        Waiting next;
        while ((next = waiting.poll()) != null) {
            left.add(next.run());
        }
        return left;
    }

    /** Waits until every slot is free (each attempt ended); returns whether they were within the timeout. */
    boolean awaitAllFree(long timeout, TimeUnit unit) throws InterruptedException {
        if (!permits.tryAcquire(concurrency, timeout, unit)) {
            return false;
        }
        permits.release(concurrency);
        return true;
    }
}

package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.DatabaseOutage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The loop of a worker's polling thread: claims due runs for its slots until the worker stops.
 *
 * <p>Each claim takes at most as many runs as there are free slots (S-EX-1), shared between queues by a {@link
 * QueueRotation} (S-QC-5), and hands each to {@link RunningAttempts}. While attempts end faster than a claim takes
 * ({@link ClaimPace}), a claim also takes up to one run per slot ahead, which waits for the next slot to free up
 * ({@link WorkerSlots}, S-EX-29): with short handlers claim round trips, not slots, bound the throughput. After a
 * claim that took all it asked for the poller waits up to 2 ms for every slot to be free, so that short handlers
 * are claimed many per statement; otherwise it waits for the next jittered poll interval, a wake-up from {@link
 * WakeUpListener} (a run was triggered), or a slot freed by a finished attempt; when a throttle key was at its
 * limit, at the latest when its window frees a start (S-TH-2), so a saturated key neither spins the poller nor waits
 * a whole poll interval past its window. A claim that found fewer due runs than it asked for, of queues without a
 * concurrency limit only, is not repeated for a freed slot: no run became due by it, and with runs started on their
 * trigger (S-EX-36), which notify nobody, such claims found nothing almost every time; the poller waits for a
 * notification of due runs or the poll interval instead (S-EX-37).
 *
 * <p>The loop body catches everything, so only the worker's stop ends it; a failed claim backs off as the {@link
 * DatabaseOutage} says, and the first claim after an outage has the heartbeats reconcile the worker's leases.
 */
final class RunPoller {

    /** Logs as the worker, whose claims these are. */
    private static final Log logger = LogFactory.getLog(RunWorker.class);

    /** How long a claim waits for more slots to free up after one that took all it asked for. */
    private static final Duration CLAIM_COALESCING = Duration.ofMillis(2);

    private final WorkerState state;

    private final QueueRotation rotation;

    private final RunningAttempts attempts;

    private final Heartbeats heartbeats;

    private final ClaimPace pace;

    private final Duration pollInterval;

    /** Schedules the heartbeats again if their task ended (S-MO-4); run before each claim. */
    private final Runnable superviseHeartbeats;

    /** Failed polls in a row: one warning per outage, a backoff, one line when it recovers. */
    private final DatabaseOutage pollOutage;

    private volatile @Nullable Instant lastPoll;

    private volatile @Nullable Throwable lastPollFailure;

    RunPoller(
            WorkerState state,
            QueueRotation rotation,
            RunningAttempts attempts,
            Heartbeats heartbeats,
            ClaimPace pace,
            Duration pollInterval,
            Runnable superviseHeartbeats) {
        this.state = state;
        this.rotation = rotation;
        this.attempts = attempts;
        this.heartbeats = heartbeats;
        this.pace = pace;
        this.pollInterval = pollInterval;
        this.superviseHeartbeats = superviseHeartbeats;
        this.pollOutage = new DatabaseOutage(logger, "Claiming runs", pollInterval);
    }

    /** When the polling thread last claimed successfully, if ever. */
    @Nullable
    Instant lastPoll() {
        return lastPoll;
    }

    /** The last polling failure, cleared by the next successful poll. */
    @Nullable
    Throwable lastPollFailure() {
        return lastPollFailure;
    }

    /** Polls that failed since the last one that succeeded. */
    long failuresInARow() {
        return pollOutage.failuresInARow();
    }

    void pollUntilStopped() {
        while (state.isRunning()) {
            boolean tookAll = false;
            boolean foundTooFew = false;
            boolean ahead = false;
            @Nullable Duration throttledUntil = null;
            @Nullable Duration backoff = null;
            try {
                superviseHeartbeats.run();
                handBackLongWaiting();
                rotation.releaseThrottleKeys();
                ahead = pace.claimAhead();
                int capacity = attempts.slots().capacity(ahead);
                long began = System.nanoTime();
                QueueRotation.Poll poll = rotation.claim(capacity, attempts::accept);
                if (capacity > 0) {
                    pace.claimTook(System.nanoTime() - began);
                }
                tookAll = capacity > 0 && poll.claimed() == capacity;
                foundTooFew = capacity > 0 && poll.claimed() < capacity && poll.failure() == null;
                throttledUntil = poll.nextFreeSlot();
                lastPollFailure = poll.failure();
                if (poll.failure() == null) {
                    lastPoll = Instant.now();
                    boolean afterOutage = pollOutage.failuresInARow() > 0;
                    pollOutage.succeeded();
                    if (afterOutage) {
                        heartbeats.reconcile();
                    }
                } else {
                    backoff = pollOutage.failed(poll.failure());
                }
            } catch (Throwable ex) {
                // Any failure, errors included, must not end the polling thread: health reports it instead.
                lastPollFailure = ex;
                backoff = pollOutage.failed(ex);
            }
            if (backoff != null) {
                state.awaitWakeUp(backoff);
            } else if (tookAll) {
                awaitFullCapacity(ahead);
            } else {
                Duration wait = jittered(pollInterval);
                Duration until = throttledUntil != null && throttledUntil.compareTo(wait) < 0 ? throttledUntil : wait;
                if (foundTooFew && rotation.onlyUnlimitedQueues()) {
                    state.awaitDueRuns(until);
                } else {
                    state.awaitWakeUp(until);
                }
            }
        }
    }

    /**
     * After a claim that took all it asked for, more runs are probably due: waits until every slot is free and no
     * run waits for one, or at most {@link #CLAIM_COALESCING}, so that with short handlers one claim statement fills
     * all the slots instead of one or two each. A free slot is filled within that time however long the others stay
     * busy.
     */
    private void awaitFullCapacity(boolean ahead) {
        WorkerSlots slots = attempts.slots();
        int full = slots.fullCapacity(ahead);
        state.awaitUntil(() -> slots.capacity(ahead) >= full, CLAIM_COALESCING);
    }

    /**
     * Runs claimed ahead wait for a slot about one claim's round trip; one that waited a whole poll interval (every
     * slot ran into long handlers) is handed back, so that another worker can run it (S-EX-17). The slots took at
     * least that long, which the pace learns, so the worker stops claiming ahead until attempts are short again.
     */
    private void handBackLongWaiting() {
        long interval = pollInterval.toNanos();
        List<ClaimedRun> late = attempts.slots().takeWaitingSince(System.nanoTime() - interval);
        if (!late.isEmpty()) {
            pace.attemptTook(interval);
            late.forEach(run -> attempts.handBack(run, "no slot freed up in time"));
        }
    }

    private static Duration jittered(Duration interval) {
        double factor = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
        return Duration.ofNanos((long) (interval.toNanos() * factor));
    }
}

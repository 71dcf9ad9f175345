package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.ThrottlePolicy;
import io.runlane.internal.worker.RunClaims.GroupClaim;
import io.runlane.internal.worker.ThrottledClaims.TaskClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Shares a worker's free slots fairly between its queues (S-QC-5).
 *
 * <p>The queues form groups: all queues without a concurrency limit together (one claim statement serves them,
 * oldest run first), and each queue with a limit on its own (claimed under its advisory lock). Each poll starts at
 * the next group in turn and offers every group an equal share of the free slots; what a group leaves unused goes
 * to the groups after it, and slots still free after one round go to the groups that took their whole share. The
 * single-slot claim of a slot that just finished ({@link #claimFollowUp}) also takes the next group in turn, falling
 * back to the unlimited queues when that group has nothing due. So a deep backlog in one group can slow the others
 * down to their share, never stop them.
 *
 * <p>Each throttled task (S-TH-1) forms groups of its own: one for its runs in the queues without a limit, one per
 * queue with a limit ({@link ThrottledClaims}). The other groups never see its runs, so a saturated throttle key
 * holds no slot and delays nobody else (S-TH-2). A throttled claim reports when its first saturated key gains a start
 * again, and the poll says the earliest ({@link Poll#nextFreeSlot}), so the poller wakes then instead of polling
 * meanwhile. The single-slot claim of a finished slot takes throttled groups in turn too, so a throttled task is
 * not starved while other work keeps every slot busy; in the completion's transaction it takes at most one queue
 * lock and then one throttle lock, in the order every claim takes them, and a holder of a throttle lock never waits
 * for a row (its reads skip locked rows), so no lock cycle can form.
 *
 * <p>Each group's runs are handed to the caller as soon as their statement commits, and a group whose claim fails
 * does not stop the others: a run, once claimed, is always either executed or handed back (S-EX-17).
 */
final class QueueRotation {

    /**
     * What one poll claimed, the first failure of a group's claim, if any, and how long until a throttle key that
     * was at its limit gains a start, if one was.
     */
    record Poll(
            int claimed,
            @Nullable Throwable failure,
            @Nullable Duration nextFreeSlot) {

        Poll(int claimed, @Nullable Throwable failure) {
            this(claimed, failure, null);
        }
    }

    private final List<GroupClaim> groups = new ArrayList<>();

    private final List<GroupClaim> throttledGroups = new ArrayList<>();

    /** Notifications that runs may be due, counted for the throttled tasks' rests ({@link ThrottledPace}). */
    private final AtomicLong dueNotifications = new AtomicLong();

    /** The earliest next free slot the throttled groups reported during the current poll. */
    private final AtomicReference<@Nullable Duration> nextFreeSlot = new AtomicReference<>();

    private final @Nullable GroupClaim unlimited;

    /** Whether a consumed queue has a concurrency limit: its group, or a throttled task's group of it, exists. */
    private final boolean limitedQueues;

    private final AtomicInteger turn = new AtomicInteger();

    /** How often the throttle keys of tasks without a throttle are released ({@link #releaseThrottleKeys}). */
    private static final long RELEASE_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

    private final Runnable releaseThrottleKeys;

    private long lastRelease;

    private boolean released;

    QueueRotation(
            RunClaims claims,
            String workerId,
            List<String> consumedQueues,
            List<TaskDefinition> tasks,
            ExecutionSettings execution,
            EngineListener listener) {
        List<String> taskIds = tasks.stream().map(TaskDefinition::id).toList();
        List<String> unthrottled = tasks.stream()
                .filter(task -> task.throttle() == null)
                .map(TaskDefinition::id)
                .toList();
        this.releaseThrottleKeys = () -> claims.throttled().release(unthrottled);
        Map<String, Integer> limits = execution.concurrencyLimits();
        List<String> unlimitedQueues = consumedQueues.stream()
                .filter(queue -> !limits.containsKey(queue))
                .toList();
        this.unlimited = unlimitedQueues.isEmpty()
                ? null
                : claims.dueClaim(workerId, unlimitedQueues, taskIds, execution.leaseDuration());
        if (unlimited != null) {
            groups.add(unlimited);
        }
        this.limitedQueues = consumedQueues.stream().anyMatch(limits::containsKey);
        for (String queue : consumedQueues) {
            Integer concurrencyLimit = limits.get(queue);
            if (concurrencyLimit != null) {
                groups.add(claims.limitedClaim(workerId, queue, concurrencyLimit, taskIds, execution.leaseDuration()));
            }
        }
        for (TaskDefinition task : tasks) {
            ThrottlePolicy throttle = task.throttle();
            if (throttle == null) {
                continue;
            }
            if (!unlimitedQueues.isEmpty()) {
                throttledGroups.add(throttled(
                        listener,
                        task.id(),
                        execution.pollInterval(),
                        claims.throttled()
                                .claimOf(
                                        workerId,
                                        task.id(),
                                        throttle,
                                        unlimitedQueues,
                                        null,
                                        execution.leaseDuration())));
            }
            for (String queue : consumedQueues) {
                Integer concurrencyLimit = limits.get(queue);
                if (concurrencyLimit != null) {
                    throttledGroups.add(throttled(
                            listener,
                            task.id(),
                            execution.pollInterval(),
                            claims.throttled()
                                    .claimOf(
                                            workerId,
                                            task.id(),
                                            throttle,
                                            List.of(queue),
                                            concurrencyLimit,
                                            execution.leaseDuration())));
                }
            }
        }
        groups.addAll(throttledGroups);
    }

    /**
     * A throttled group: keeps the earliest next free slot of the poll and reports saturated keys (S-TH-2); after a
     * claim that came back short it rests ({@link ThrottledPace}), still reporting when its first saturated key frees
     * a start, so that the poller wakes then.
     */
    private GroupClaim throttled(EngineListener listener, String taskId, Duration pollInterval, TaskClaim group) {
        ThrottledPace pace = new ThrottledPace(pollInterval);
        return limit -> {
            long now = System.nanoTime();
            long notifications = dueNotifications.get();
            if (pace.resting(now, notifications)) {
                reportFreeSlot(pace.untilFree(now));
                return List.of();
            }
            ThrottledClaims.Claim claim = group.claim(limit);
            pace.claimed(System.nanoTime(), notifications, claim.runs().size() >= limit, claim.nextFreeSlot());
            reportFreeSlot(claim.nextFreeSlot());
            if (claim.saturatedKeys() > 0) {
                listener.claimThrottled(taskId, claim.saturatedKeys());
            }
            return claim.runs();
        };
    }

    private void reportFreeSlot(@Nullable Duration free) {
        if (free != null) {
            nextFreeSlot.accumulateAndGet(free, (a, b) -> a == null || b.compareTo(a) < 0 ? b : a);
        }
    }

    /**
     * Notes a notification that runs may be due (a trigger committed, a run was woken): resting throttled tasks claim
     * again at the next poll ({@link ThrottledPace}).
     */
    void dueRunsNotified() {
        dueNotifications.incrementAndGet();
    }

    /**
     * S-TH-1: at the first call and then at most once a minute, releases the throttle keys of the waiting runs of
     * the tasks without a throttle (admitted while an instance declared one), so the other claims take them. Called
     * by the polling thread only.
     */
    void releaseThrottleKeys() {
        long now = System.nanoTime();
        if (released && now - lastRelease < RELEASE_INTERVAL_NANOS) {
            return;
        }
        releaseThrottleKeys.run();
        released = true;
        lastRelease = now;
    }

    /**
     * Claims up to {@code free} runs, handing each group's runs to {@code claimed} as soon as its statement
     * returns. Never throws for a failing claim: the failure is returned after the other groups were claimed.
     */
    Poll claim(int free, Consumer<ClaimedRun> claimed) {
        int groupCount = groups.size();
        if (free < 1 || groupCount == 0) {
            return new Poll(0, null);
        }
        nextFreeSlot.set(null);
        int start = Math.floorMod(turn.getAndIncrement(), groupCount);
        int remaining = free;
        Throwable failure = null;
        List<GroupClaim> tookTheirShare = new ArrayList<>();
        for (int i = 0; i < groupCount && remaining > 0; i++) {
            GroupClaim group = groups.get((start + i) % groupCount);
            int share = (remaining + groupCount - i - 1) / (groupCount - i);
            try {
                int taken = claimInto(group, share, claimed);
                remaining -= taken;
                if (taken == share) {
                    tookTheirShare.add(group);
                }
            } catch (Throwable ex) {
                failure = failure == null ? ex : failure;
            }
        }
        for (GroupClaim group : tookTheirShare) {
            if (remaining == 0) {
                break;
            }
            try {
                remaining -= claimInto(group, remaining, claimed);
            } catch (Throwable ex) {
                failure = failure == null ? ex : failure;
            }
        }
        return new Poll(free - remaining, failure, nextFreeSlot.get());
    }

    /**
     * Whether every group claims queues without a concurrency limit: the unlimited queues' group and the throttled
     * tasks' groups of those queues. No queue's capacity can free up when an attempt ends, and a throttle key's window
     * frees up with time, not with attempts ending (S-TH-1; the poll says when, {@link Poll#nextFreeSlot}), so a poll
     * that found fewer due runs than it asked for stays true until runs are triggered, woken or come due (S-EX-37).
     */
    boolean onlyUnlimitedQueues() {
        return unlimited != null && !limitedQueues;
    }

    /**
     * Claims one run for a slot that just finished: from the next group in turn, else from the unlimited queues.
     * Called inside the transaction that records the slot's previous outcome.
     */
    @Nullable
    ClaimedRun claimFollowUp() {
        if (groups.isEmpty()) {
            return null;
        }
        GroupClaim group = groups.get(Math.floorMod(turn.getAndIncrement(), groups.size()));
        List<ClaimedRun> next = group.claim(1);
        if (next.isEmpty() && group != unlimited && unlimited != null) {
            next = unlimited.claim(1);
        }
        return next.isEmpty() ? null : next.get(0);
    }

    private static int claimInto(GroupClaim group, int limit, Consumer<ClaimedRun> claimed) {
        List<ClaimedRun> runs = group.claim(limit);
        runs.forEach(claimed);
        return runs.size();
    }
}

package io.runlane.internal.worker;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a throttled task's claim may be skipped (S-TH-2). A claim that took fewer runs than it asked found nothing
 * more to start: its keys are at their throttle or it has no more due runs. Claiming it again on every poll, as other
 * tasks' slots free, would spend several statements per poll on nothing and slow the other tasks' claims. So after
 * such a claim the task rests until the earliest of: the next free start the claim reported, one poll interval, or a
 * notification that runs may be due (a trigger, a wake-up; {@link #notified}), which a freed slot is not. A rest is
 * never longer than the poll interval, so a run that becomes due by its time is claimed no later than an idle
 * worker's poll would claim it.
 */
final class ThrottledPace {

    private final long maxRestNanos;

    private boolean resting;

    private long restUntil;

    /** When the claim's first saturated key gains a start ({@link System#nanoTime()}), or 0 when it reported none. */
    private long freeAt;

    private long notificationsAtRest;

    ThrottledPace(Duration maxRest) {
        this.maxRestNanos = maxRest.toNanos();
    }

    /**
     * Whether the task's claim is skipped at {@code now}, with {@code notifications} the count of notifications seen
     * so far; a rest ends when it runs out or a notification came since it began.
     */
    synchronized boolean resting(long now, long notifications) {
        if (resting && (notifications != notificationsAtRest || now - restUntil >= 0)) {
            resting = false;
        }
        return resting;
    }

    /** How long until the resting task's first saturated key gains a start, or {@code null} when it reported none. */
    synchronized @Nullable Duration untilFree(long now) {
        if (!resting || freeAt == 0) {
            return null;
        }
        return Duration.ofNanos(Math.max(Duration.ofMillis(1).toNanos(), freeAt - now));
    }

    /**
     * Records a claim made at {@code now} after {@code notifications} notifications: a short one starts a rest, one
     * that took all it asked ends any.
     */
    synchronized void claimed(long now, long notifications, boolean tookAll, @Nullable Duration nextFreeSlot) {
        if (tookAll) {
            resting = false;
            return;
        }
        long rest = nextFreeSlot == null ? maxRestNanos : Math.min(nextFreeSlot.toNanos(), maxRestNanos);
        resting = true;
        restUntil = now + rest;
        freeAt = nextFreeSlot == null ? 0 : now + Math.max(1, nextFreeSlot.toNanos());
        notificationsAtRest = notifications;
    }
}

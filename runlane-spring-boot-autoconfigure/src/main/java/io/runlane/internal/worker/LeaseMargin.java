package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How much of its lease a claimed run must have left for its handler to start (S-EX-30): the larger of one heartbeat
 * interval and a third of the lease.
 *
 * <p>A claim's answer can arrive late (a network partition held it, the database answered slowly), and a run claimed
 * ahead waits for a slot. Once a handler runs, the next heartbeat, up to one interval later, must reach the database
 * before the lease ends; otherwise recovery may give the run to another worker while this handler still runs, and
 * two executions overlap. The third of the lease leaves room for that heartbeat's own round trip when the interval
 * is short. What is left is judged from when the claim statement was sent ({@link ClaimedRun#claimSentNanos}) on the
 * monotonic clock: the database started the lease no earlier, so the estimate errs on the safe side however the two
 * machines' clocks differ.
 */
final class LeaseMargin {

    private final Duration lease;

    private final Duration margin;

    private final LongSupplier nanoTime;

    LeaseMargin(Duration lease, Duration heartbeatInterval) {
        this(lease, heartbeatInterval, System::nanoTime);
    }

    LeaseMargin(Duration lease, Duration heartbeatInterval, LongSupplier nanoTime) {
        this.lease = lease;
        Duration third = lease.dividedBy(3);
        this.margin = heartbeatInterval.compareTo(third) > 0 ? heartbeatInterval : third;
        this.nanoTime = nanoTime;
    }

    /** The least lease a handler may start with. */
    /** The lease a claim starts with. */
    Duration lease() {
        return lease;
    }

    /** The longest after sending its claim that a handler may still start (S-EX-30): the lease less the margin. */
    Duration startWindow() {
        return lease.minus(margin);
    }

    Duration margin() {
        return margin;
    }

    /** How long ago the claim of {@code run} was sent. */
    Duration sinceClaimSent(ClaimedRun run) {
        return Duration.ofNanos(nanoTime.getAsLong() - run.claimSentNanos());
    }

    /** Whether the handler of {@code run} may start now: at least the margin of its lease is surely left. */
    boolean startable(ClaimedRun run) {
        return lease.minus(sinceClaimSent(run)).compareTo(margin) >= 0;
    }
}

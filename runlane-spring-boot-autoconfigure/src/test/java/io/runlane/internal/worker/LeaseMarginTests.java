package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-30: how much of its lease a claimed run needs left for its handler to start, on a test clock. */
class LeaseMarginTests {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    @DisplayName("S-EX-30: the margin is a third of the lease, or one heartbeat interval when that is longer")
    void marginIsTheLargerOfAThirdOfTheLeaseAndAHeartbeatInterval() {
        assertThat(new LeaseMargin(Duration.ofSeconds(60), Duration.ofSeconds(20)).margin())
                .isEqualTo(Duration.ofSeconds(20));
        assertThat(new LeaseMargin(Duration.ofSeconds(5), Duration.ofMillis(500)).margin())
                .isEqualTo(Duration.ofSeconds(5).dividedBy(3));
        assertThat(new LeaseMargin(Duration.ofSeconds(10), Duration.ofSeconds(8)).margin())
                .isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    @DisplayName("S-EX-30: a handler starts while the margin of the lease is left since the claim was sent, and not"
            + " after; a run waiting for a slot is judged by the same clock")
    void startableUntilOnlyTheMarginIsLeft() {
        LeaseMargin margin = new LeaseMargin(Duration.ofSeconds(60), Duration.ofSeconds(20), now::get);
        ClaimedRun claimed = claimedAt(now.get());

        assertThat(margin.startable(claimed)).isTrue();
        now.addAndGet(Duration.ofSeconds(40).toNanos());
        assertThat(margin.startable(claimed)).as("exactly the margin left").isTrue();
        now.addAndGet(1);
        assertThat(margin.startable(claimed)).isFalse();
        assertThat(margin.sinceClaimSent(claimed))
                .isEqualTo(Duration.ofSeconds(40).plusNanos(1));
        now.addAndGet(Duration.ofMinutes(5).toNanos());
        assertThat(margin.startable(claimed)).as("long past the lease").isFalse();
    }

    private static ClaimedRun claimedAt(long sentNanos) {
        Instant at = Instant.now();
        Run run = new Run(
                UUID.randomUUID(),
                "t",
                "default",
                RunStatus.RUNNING,
                null,
                null,
                1,
                3,
                at,
                at,
                at,
                null,
                null,
                "{}",
                null,
                null,
                null,
                null,
                null,
                1,
                0,
                null,
                null);
        return new ClaimedRun(run, 1, 0, Map.of(), sentNanos);
    }
}

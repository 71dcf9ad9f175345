package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-29: when a worker claims runs ahead of its free slots. */
class ClaimPaceTests {

    private final ClaimPace pace = new ClaimPace();

    @Test
    @DisplayName("S-EX-29: nothing is claimed ahead before both an attempt and a claim were timed")
    void nothingAheadWithoutMeasurements() {
        assertThat(pace.claimAhead()).isFalse();
        pace.attemptTook(micros(100));
        assertThat(pace.claimAhead()).isFalse();
    }

    @Test
    @DisplayName("S-EX-29: attempts that end faster than a claim returns are claimed ahead; slower ones are not")
    void aheadOnlyWhileAttemptsAreShorterThanClaims() {
        pace.claimTook(micros(1_000));
        pace.attemptTook(micros(100));
        assertThat(pace.claimAhead()).isTrue();

        ClaimPace slow = new ClaimPace();
        slow.claimTook(micros(1_000));
        slow.attemptTook(micros(50_000));
        assertThat(slow.claimAhead()).isFalse();
    }

    @Test
    @DisplayName("S-EX-29: one long attempt stops claiming ahead; a run of short ones starts it again")
    void movingAverageFollowsTheHandlers() {
        pace.claimTook(micros(1_000));
        pace.attemptTook(micros(100));
        pace.attemptTook(TimeUnit.SECONDS.toNanos(1));
        assertThat(pace.claimAhead()).isFalse();

        int shortAttempts = 0;
        while (!pace.claimAhead()) {
            pace.attemptTook(micros(100));
            shortAttempts++;
        }
        assertThat(shortAttempts).isBetween(10, 40);
    }

    private static long micros(long micros) {
        return TimeUnit.MICROSECONDS.toNanos(micros);
    }
}

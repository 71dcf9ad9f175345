package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A heartbeat judges lost leases only where a loss is possible (S-EX-11, S-EX-16): a run that is no longer held
 * because its own attempt's outcome committed after the heartbeat's snapshot was not lost.
 */
@RunlaneDatabaseTest
class HeartbeatsIntegrationTests {

    private static final Duration LEASE = Duration.ofMinutes(1);

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("heartbeats") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new ConfirmOrder());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    @Test
    @DisplayName(
            "S-EX-11: a run whose outcome committed after the heartbeat's snapshot is not reported as a lost lease")
    void completedAttemptIsNotMarkedLost() {
        AttemptContext completed = claimedAttempt("w-1");
        completed.handlerStarted();
        completed.handlerEnded();
        assertThat(runlane.engine().outcomes().completeIfHeld(completed.runId(), token(completed), "w-1"))
                .isPresent();

        heartbeat("w-1", completed);

        assertThat(completed.leaseLost()).isFalse();
        assertThat(completed.isCancellationRequested()).isFalse();
    }

    @Test
    @DisplayName("S-EX-11: a running handler whose run is no longer held is told its lease is lost")
    void runningAttemptWhoseRunIsGoneIsMarkedLost() {
        AttemptContext running = claimedAttempt("w-1");
        running.handlerStarted();
        // another party ended the run under this attempt (as recovery would after an expired lease)
        runlane.engine().outcomes().completeIfHeld(running.runId(), token(running), "w-1");

        heartbeat("w-1", running);

        assertThat(running.leaseLost()).isTrue();
        assertThat(running.isCancellationRequested()).isTrue();
    }

    private AttemptContext claimedAttempt(String worker) {
        runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-1", 1));
        List<ClaimedRun> claimed =
                runlane.engine().claims().claimDue(worker, Set.of("default"), Set.of("orders.confirm"), 1, LEASE);
        assertThat(claimed).hasSize(1);
        return new AttemptContext(claimed.get(0), runlane.template());
    }

    private static long token(AttemptContext context) {
        return context.claimed().fencingToken();
    }

    private void heartbeat(String worker, AttemptContext context) {
        new Heartbeats(runlane.engine().claims(), worker, LEASE, () -> List.of(context), Set::of, EngineListener.NONE)
                .beat();
    }
}

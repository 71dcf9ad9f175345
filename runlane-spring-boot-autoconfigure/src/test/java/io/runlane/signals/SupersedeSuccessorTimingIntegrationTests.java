package io.runlane.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * When a {@code SUPERSEDE} successor that waits for its predecessor may start (S-CP-3, issue 25): at the later of its
 * own due time and the predecessor's end (S-TR-4), whichever path ends the predecessor; and never while the
 * predecessor's handler still executes on a live instance, even after the cancellation grace made it {@code
 * CANCELLED} (S-CA-5).
 */
@RunlaneDatabaseTest
class SupersedeSuccessorTimingIntegrationTests {

    /** One execution of a run: when its handler started and returned (nanoTime). */
    record Execution(UUID runId, String key, long startedNanos, long endedNanos) {}

    static final List<Execution> EXECUTIONS = new CopyOnWriteArrayList<>();

    static volatile CountDownLatch release = new CountDownLatch(1);

    /** Runs until asked to cancel; a stubborn one ignores the request and runs until {@link #release}. */
    @Task(id = "timing.sync", onSingletonConflict = SingletonConflictPolicy.SUPERSEDE)
    public static class Sync implements TaskHandler<Sync.Payload> {

        public record Payload(String key, boolean stubborn) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            long started = System.nanoTime();
            if (payload.stubborn()) {
                boolean released = false;
                while (!released) {
                    try {
                        released = release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException ignored) {
                        // a handler that ignores everything
                    }
                }
            } else {
                while (!context.isCancellationRequested() && !release.await(5, TimeUnit.MILLISECONDS)) {
                    // works until cancelled or released
                }
            }
            EXECUTIONS.add(new Execution(context.runId(), payload.key(), started, System.nanoTime()));
        }
    }

    /** The end path of a predecessor whose wake-up statement was lost. */
    enum LateWakeUp {
        RIGHT_AFTER_THE_COMMIT,
        BY_MAINTENANCE
    }

    @Pool(size = 20)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("timing") String schema) {
        EXECUTIONS.clear();
        release = new CountDownLatch(1);
        runlane = instance(schema, Duration.ofSeconds(1));
    }

    private TestRunlane instance(String schema, Duration lease) {
        return TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings,
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(50))
                        .withLease(lease, Duration.ofMillis(100))
                        .withRecoveryInterval(Duration.ofMillis(100))
                        .withCancellationGrace(Duration.ofMillis(300))
                        .withShutdownTimeout(Duration.ofSeconds(1))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Sync());
    }

    @AfterEach
    void stop() {
        release.countDown();
        runlane.stop();
    }

    private TriggerResult sync(String key, boolean stubborn) {
        return sync(key, stubborn, TriggerOptions.builder().build());
    }

    private TriggerResult sync(String key, boolean stubborn, TriggerOptions options) {
        return runlane.template().trigger("timing.sync", new Sync.Payload(key, stubborn), options);
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    /** The successor once a wake-up moved its due time back from the far future of its wait. */
    private Run awaitWoken(UUID runId) {
        Instant farFuture = Instant.now().plus(Duration.ofDays(3650));
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> runlane.run(runId),
                        run -> run.runAt() != null && run.runAt().isBefore(farFuture));
    }

    private ClaimedRun claimFrozen(Duration lease) {
        return runlane.engine()
                .claims()
                .claimDue("frozen-worker", List.of("default"), List.of("timing.sync"), 1, lease)
                .get(0);
    }

    private Instant leaseExpiresAt(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at FROM " + runlane.schema() + ".runs WHERE id = ?",
                        OffsetDateTime.class,
                        runId)
                .toInstant();
    }

    private static void assertNoOverlap(String key) {
        List<Execution> executions = EXECUTIONS.stream()
                .filter(execution -> execution.key().equals(key))
                .sorted(Comparator.comparingLong(Execution::startedNanos))
                .toList();
        for (int i = 1; i < executions.size(); i++) {
            assertThat(executions.get(i).startedNanos())
                    .as(
                            "execution %s starts after %s ended",
                            executions.get(i).runId(), executions.get(i - 1).runId())
                    .isGreaterThan(executions.get(i - 1).endedNanos());
        }
    }

    @Test
    @DisplayName("S-CP-3, S-TR-4: a successor triggered with a 1 h delay that waits for a running owner becomes due an"
            + " hour after its trigger, not when the owner ends")
    void delayedSuccessorKeepsItsDelayWhenTheOwnerEnds() {
        runlane.startWorker();
        UUID owner = sync("k-delay", false).runId();
        awaitStatus(owner, RunStatus.RUNNING);

        TriggerResult successor = sync(
                "k-delay",
                false,
                TriggerOptions.builder().delay(Duration.ofHours(1)).build());

        assertThat(successor.run().status()).isEqualTo(RunStatus.WAITING);
        awaitStatus(owner, RunStatus.CANCELLED);
        Run woken = awaitWoken(successor.runId());
        assertThat(woken.runAt())
                .isAfter(woken.createdAt().plus(Duration.ofMinutes(59)))
                .isBefore(woken.createdAt().plus(Duration.ofMinutes(61)));
        assertThat(woken.status()).isEqualTo(RunStatus.WAITING);
        assertThat(woken.attempts()).isZero();
    }

    @Test
    @DisplayName("S-CP-3, S-TR-4, S-EX-7: a successor with a run-at keeps it when lease recovery ends its owner")
    void successorKeepsItsRunAtWhenLeaseRecoveryEndsTheOwner() {
        UUID owner = sync("k-run-at", false).runId();
        claimFrozen(Duration.ofMillis(200));
        Instant runAt = Instant.now().plus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MILLIS);

        TriggerResult successor =
                sync("k-run-at", false, TriggerOptions.builder().runAt(runAt).build());

        assertThat(successor.run().status()).isEqualTo(RunStatus.WAITING);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() > 0);
        assertThat(runlane.run(owner).status()).isEqualTo(RunStatus.CANCELLED);
        Run woken = runlane.run(successor.runId());
        assertThat(woken.runAt()).isEqualTo(runAt);
        assertThat(woken.status()).isEqualTo(RunStatus.WAITING);
    }

    @Test
    @DisplayName("S-CP-3, S-ID-10: a successor with the latest allowed run-at waits, reads back, and keeps its run-at"
            + " when its owner ends")
    void successorWithTheLatestRunAtWaits() {
        UUID owner = sync("k-9999", false).runId();
        ClaimedRun frozen = claimFrozen(Duration.ofMinutes(5));
        Instant runAt = Instant.parse("9999-12-31T23:59:59Z");

        TriggerResult successor =
                sync("k-9999", false, TriggerOptions.builder().runAt(runAt).build());

        assertThat(runlane.run(successor.runId()).status()).isEqualTo(RunStatus.WAITING);
        runlane.engine()
                .outcomes()
                .completeIfHeld(owner, frozen.fencingToken(), "frozen-worker")
                .orElseThrow();
        assertThat(runlane.run(successor.runId()).runAt()).isEqualTo(runAt);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LateWakeUp.class)
    @DisplayName("S-CP-3, S-TR-4, S-RS-4: the wake-ups that cover a lost one (right after the end's commit, and"
            + " maintenance) keep the successor's delay too")
    void lateWakeUpsKeepTheDelay(LateWakeUp path) {
        UUID owner = sync("k-late", false).runId();
        claimFrozen(Duration.ofMinutes(5));
        TriggerResult successor = sync(
                "k-late",
                false,
                TriggerOptions.builder().delay(Duration.ofHours(1)).build());
        assertThat(successor.run().status()).isEqualTo(RunStatus.WAITING);

        // The owner ends without its statement's own wake-up, as if the successor parked on a snapshot it missed.
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET status = 'CANCELLED', finished_at = now(),"
                                + " lease_owner = NULL, lease_expires_at = NULL WHERE id = ?",
                        owner);
        if (path == LateWakeUp.RIGHT_AFTER_THE_COMMIT) {
            runlane.engine().endings().ended(owner);
        } else {
            assertThat(runlane.engine().missedWakeUps().wakeStranded(10)).isEqualTo(1);
        }

        Run woken = awaitWoken(successor.runId());
        assertThat(woken.runAt())
                .isAfter(woken.createdAt().plus(Duration.ofMinutes(59)))
                .isBefore(woken.createdAt().plus(Duration.ofMinutes(61)));
        assertThat(runlane.engine().missedWakeUps().wakeStranded(10))
                .as("a woken successor is not woken again")
                .isZero();
        assertThat(runlane.run(successor.runId()).runAt()).isEqualTo(woken.runAt());
    }

    @Test
    @DisplayName("S-CP-3, S-CA-5: an owner whose handler ignores the cancellation is CANCELLED after the grace, but"
            + " its successor waits until that handler returned; they never execute at once")
    void successorWaitsForAHandlerThatIgnoresTheCancellation() {
        runlane.startWorker().startMaintenance();
        UUID owner = sync("k-stubborn", true).runId();
        awaitStatus(owner, RunStatus.RUNNING);

        TriggerResult successor = sync("k-stubborn", false);

        assertThat(successor.run().status()).isEqualTo(RunStatus.WAITING);
        Run cancelled = awaitStatus(owner, RunStatus.CANCELLED);
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .until(() -> runlane.run(successor.runId()).status() == RunStatus.WAITING);

        release.countDown();
        awaitStatus(successor.runId(), RunStatus.SUCCEEDED);
        assertThat(runlane.run(owner))
                .as("S-CA-5: the handler's late outcome is refused")
                .isEqualTo(cancelled);
        assertNoOverlap("k-stubborn");
        assertThat(EXECUTIONS).extracting(Execution::runId).contains(owner, successor.runId());
    }

    @Test
    @DisplayName("S-CP-3, S-CA-5: the successor starts as soon as the ignoring handler returned, without waiting for"
            + " the lease its worker kept extending to expire")
    void successorStartsWhenTheIgnoringHandlerReturns() {
        runlane.stop();
        runlane = instance(runlane.schema(), Duration.ofSeconds(60));
        runlane.startWorker().startMaintenance();
        UUID owner = sync("k-returns", true).runId();
        awaitStatus(owner, RunStatus.RUNNING);
        UUID successor = sync("k-returns", false).runId();
        awaitStatus(owner, RunStatus.CANCELLED);

        release.countDown();

        await().atMost(Duration.ofSeconds(15))
                .until(() -> runlane.run(successor).status() == RunStatus.SUCCEEDED);
        assertNoOverlap("k-returns");
    }

    @Test
    @DisplayName("S-CP-3, S-CA-5: a newer SUPERSEDE of the waiting successor waits for the ignoring handler too, after"
            + " the grace ended its run")
    void newerSupersedeWaitsForTheIgnoringHandler() {
        runlane.startWorker().startMaintenance();
        UUID owner = sync("k-chain", true).runId();
        awaitStatus(owner, RunStatus.RUNNING);
        UUID second = sync("k-chain", false).runId();
        awaitStatus(owner, RunStatus.CANCELLED);

        TriggerResult third = sync("k-chain", false);

        assertThat(runlane.run(second).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(third.run().status()).isEqualTo(RunStatus.WAITING);
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(4))
                .until(() -> runlane.run(third.runId()).status() == RunStatus.WAITING);

        release.countDown();
        awaitStatus(third.runId(), RunStatus.SUCCEEDED);
        assertNoOverlap("k-chain");
    }

    @Test
    @DisplayName("S-CP-3, S-CA-5, S-EX-7: when the ignoring owner's worker stops heartbeating, the successor starts"
            + " once that attempt's lease expired, not when the grace ended the run")
    void successorStartsWhenTheIgnoringWorkersLeaseExpires() {
        release.countDown();
        UUID owner = sync("k-frozen", false).runId();
        claimFrozen(Duration.ofSeconds(3));
        Instant leaseExpiresAt = leaseExpiresAt(owner);
        UUID successor = sync("k-frozen", false).runId();
        runlane.startWorker().startMaintenance();

        awaitStatus(owner, RunStatus.CANCELLED);
        awaitStatus(successor, RunStatus.SUCCEEDED);

        List<RunAttempt> attempts = runlane.template().runs().attempts(successor);
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).startedAt()).isAfterOrEqualTo(leaseExpiresAt);
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Leases, heartbeats, fencing and recovery (S-EX-2, S-EX-3, S-EX-7). */
@RunlaneDatabaseTest
class LeaseIntegrationTests {

    /** Spins the CPU for the time its payload says, never yielding to Runlane. */
    @Task(id = "lease.busy")
    public static class Busy implements TaskHandler<Busy.Payload> {

        public record Payload(long millis) {}

        @Override
        public void run(Payload payload, RunContext context) {
            long until = System.nanoTime() + Duration.ofMillis(payload.millis()).toNanos();
            long spins = 0;
            while (System.nanoTime() < until) {
                spins++;
            }
            if (spins < 0) {
                throw new IllegalStateException("unreachable");
            }
        }
    }

    /** Waits until it is told to stop, and remembers that it was. */
    @Task(id = "lease.waiting")
    public static class Waiting implements TaskHandler<Waiting.Payload> {

        public record Payload(String key) {}

        static final java.util.Set<String> TOLD_TO_STOP = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public void run(Payload payload, RunContext context) {
            await().atMost(Duration.ofSeconds(20)).until(context::isCancellationRequested);
            TOLD_TO_STOP.add(payload.key());
        }
    }

    /** Attempt results as the worker reported them. */
    static final java.util.List<String> RESULTS = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static final Duration LEASE = Duration.ofMillis(1500);

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("lease") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(LEASE, Duration.ofMillis(300))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withRecoveryInterval(Duration.ofMillis(200)),
                new io.runlane.internal.kernel.EngineListener() {
                    @Override
                    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
                        RESULTS.add(claimed.run().id() + ":" + result);
                    }
                },
                new Busy(),
                new Waiting());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    /** Claims a run the way a worker would and then never heartbeats: a frozen or killed worker. */
    private ClaimedRun claimAsDeadWorker(UUID runId) {
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("dead-worker", List.of("default"), List.of("lease.busy"), 1, Duration.ofMillis(300));
        assertThat(claimed)
                .singleElement()
                .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));
        return claimed.get(0);
    }

    @Test
    @DisplayName(
            "S-EX-7, S-EX-3: a run whose worker stopped heartbeating is recovered, and its late completion is refused")
    void deadWorkersRunIsRecoveredAndItsLateCompletionRefused() {
        UUID runId =
                runlane.template().trigger("lease.busy", new Busy.Payload(1)).runId();
        ClaimedRun dead = claimAsDeadWorker(runId);
        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.RUNNING);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);

        Run recovered = runlane.run(runId);
        assertThat(recovered.status()).isEqualTo(RunStatus.RETRYING);
        assertThat(recovered.failure().code()).isEqualTo("lease_expired");
        assertThat(runlane.engine().outcomes().completeIfHeld(runId, dead.fencingToken(), "dead-worker"))
                .as("late completion of the dead attempt")
                .isEmpty();
        assertThat(runlane.run(runId)).isEqualTo(recovered);

        runlane.startWorker();
        Run succeeded = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId), run -> run.status() == RunStatus.SUCCEEDED);
        assertThat(succeeded.attempts()).isEqualTo(2);
        assertThat(runlane.engine().outcomes().completeIfHeld(runId, dead.fencingToken(), "dead-worker"))
                .isEmpty();
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.LEASE_EXPIRED,
                        RunEventType.CLAIMED,
                        RunEventType.SUCCEEDED);
    }

    @Test
    @DisplayName(
            "S-EX-10: an expired lease that was not yet recovered still completes, since nobody else holds the run")
    void expiredButUnrecoveredLeaseStillCompletes() {
        UUID runId =
                runlane.template().trigger("lease.busy", new Busy.Payload(1)).runId();
        ClaimedRun slow = claimAsDeadWorker(runId);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> leaseExpiry(runId).toInstant().isBefore(databaseNow()));

        assertThat(runlane.engine().outcomes().completeIfHeld(runId, slow.fencingToken(), "dead-worker"))
                .hasValueSatisfying(run -> assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED));
        assertThat(runlane.engine().leaseRescuer().rescueExpired()).isZero();
    }

    @Test
    @DisplayName("S-EX-11, S-EX-3: an attempt that lost its lease is told to stop, and its outcome is refused")
    void attemptThatLostItsLeaseIsToldToStop() {
        runlane.startWorker();
        String key = "lost-" + UUID.randomUUID();
        UUID runId = runlane.template()
                .trigger("lease.waiting", new Waiting.Payload(key))
                .runId();
        await().until(() -> runlane.run(runId).status() == RunStatus.RUNNING);

        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET fencing_token = fencing_token + 1 WHERE id = ?",
                        runId);

        await().atMost(Duration.ofSeconds(10)).until(() -> Waiting.TOLD_TO_STOP.contains(key));
        await().until(() -> RESULTS.contains(runId + ":lease_lost"));
        assertThat(runlane.run(runId).status())
                .as("the refused outcome changed nothing")
                .isEqualTo(RunStatus.RUNNING);
    }

    private java.time.Instant databaseNow() {
        return runlane.jdbc()
                .queryForObject("SELECT now()", java.time.OffsetDateTime.class)
                .toInstant();
    }

    @Test
    @DisplayName("S-EX-7: an expired lease with no attempts left fails the run")
    void expiredLeaseWithoutBudgetFailsTheRun() {
        UUID runId =
                runlane.template().trigger("lease.busy", new Busy.Payload(1)).runId();
        runlane.jdbc().update("UPDATE " + runlane.schema() + ".runs SET max_attempts = 1 WHERE id = ?", runId);
        claimAsDeadWorker(runId);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() == 1);

        Run failed = runlane.run(runId);
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.failure().code()).isEqualTo("lease_expired");
    }

    @Test
    @DisplayName("S-EX-7: several instances recovering at once change each run exactly once, without deadlock")
    void concurrentRecoveryChangesEachRunOnce() {
        List<UUID> runIds = java.util.stream.IntStream.range(0, 40)
                .mapToObj(i -> runlane.template()
                        .trigger("lease.busy", new Busy.Payload(1))
                        .runId())
                .toList();
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("dead-worker", List.of("default"), List.of("lease.busy"), 40, Duration.ofMillis(200));
        assertThat(claimed).hasSize(40);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.jdbc()
                                .queryForObject(
                                        "SELECT count(*) FROM " + runlane.schema()
                                                + ".runs WHERE lease_expires_at < now()",
                                        Long.class)
                        == 40);

        List<Concurrently.Outcome<Integer>> outcomes =
                Concurrently.run(4, i -> () -> runlane.engine().leaseRescuer().rescueExpired());

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(outcomes.stream().mapToInt(Concurrently.Outcome::value).sum())
                .isEqualTo(40);
        for (UUID runId : runIds) {
            assertThat(runlane.template().runs().events(runId))
                    .filteredOn(event -> event.type() == RunEventType.LEASE_EXPIRED)
                    .hasSize(1);
        }
    }

    @Test
    @DisplayName("S-EX-2: a CPU-bound handler running longer than the lease keeps its lease")
    void cpuBoundHandlerKeepsItsLease() {
        runlane.startWorker().startMaintenance();

        UUID runId = runlane.template()
                .trigger("lease.busy", new Busy.Payload(LEASE.multipliedBy(3).toMillis()))
                .runId();

        Run succeeded = await().atMost(Duration.ofSeconds(30))
                .until(() -> runlane.run(runId), run -> run.status().isTerminal());
        assertThat(succeeded.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(succeeded.attempts()).isOne();
        assertThat(runlane.template().runs().events(runId))
                .extracting(RunEvent::type)
                .doesNotContain(RunEventType.LEASE_EXPIRED);
    }

    @Test
    @DisplayName("S-EX-2: heartbeats move the lease forward on the database clock")
    void heartbeatsExtendTheLease() {
        runlane.startWorker();
        UUID runId = runlane.template()
                .trigger("lease.busy", new Busy.Payload(LEASE.multipliedBy(2).toMillis()))
                .runId();
        await().until(() -> runlane.run(runId).status() == RunStatus.RUNNING);
        java.time.OffsetDateTime first = leaseExpiry(runId);

        await().atMost(Duration.ofSeconds(5)).until(() -> {
            java.time.OffsetDateTime now = leaseExpiry(runId);
            return now != null && now.isAfter(first);
        });

        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.RUNNING);
    }

    private java.time.OffsetDateTime leaseExpiry(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at FROM " + runlane.schema() + ".runs WHERE id = ?",
                        java.time.OffsetDateTime.class,
                        runId);
    }
}

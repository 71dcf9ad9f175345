package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How parked runs wake (S-RS-4, S-CA-2), driven statement by statement: the parking statement, the ending statement's
 * own wake-up, the wake-up after its commit, and maintenance's safety net.
 */
@RunlaneDatabaseTest
class WakeUpIntegrationTests {

    /** A task that does nothing; these tests claim and park its runs by hand. */
    @Task(id = "wakeups.quick", queue = "solo")
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("wakeups") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of("solo")),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withConcurrencyLimits(Map.of("solo", 1)),
                io.runlane.internal.kernel.EngineListener.NONE,
                new Quick());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    @Test
    @DisplayName("S-CA-2: a run whose cancellation was requested does not park: it ends CANCELLED")
    void cancellationRequestedRunDoesNotPark() {
        UUID runId = runlane.template()
                .trigger("wakeups.quick", new Quick.Payload("c"))
                .runId();
        io.runlane.internal.kernel.ClaimedRun claimed = runlane.engine()
                .claims()
                .claimDue(
                        "test-worker",
                        java.util.List.of("solo"),
                        java.util.List.of("wakeups.quick"),
                        1,
                        Duration.ofMinutes(1))
                .get(0);
        assertThat(runlane.template().runs().cancel(runId, "stop").status())
                .isEqualTo(RunStatus.CANCELLATION_REQUESTED);

        Run after = runlane.engine()
                .durable()
                .parking()
                .parkIfHeld(
                        runId,
                        claimed.fencingToken(),
                        "test-worker",
                        io.runlane.internal.wait.WaitRequest.until(Instant.now().plusSeconds(3600), "nap"))
                .orElseThrow();

        assertThat(after.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(after.finishedAt()).isNotNull();
    }

    @Test
    @DisplayName("Finding: a run that parks while its awaited run's completion waits for the park's lock is woken"
            + " right after that completion commits, not at its deadline (S-RS-4)")
    void parkRacingTheAwaitedRunsCompletionIsWokenAfterTheCompletion() throws Exception {
        UUID child = runlane.template()
                .trigger("wakeups.quick", new Quick.Payload("child"))
                .runId();
        UUID parent = runlane.template()
                .trigger("wakeups.quick", new Quick.Payload("parent"))
                .runId();
        java.util.List<io.runlane.internal.kernel.ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue(
                        "test-worker",
                        java.util.List.of("solo"),
                        java.util.List.of("wakeups.quick"),
                        2,
                        Duration.ofMinutes(1));
        io.runlane.internal.kernel.ClaimedRun childClaim = claimed.stream()
                .filter(run -> run.run().id().equals(child))
                .findFirst()
                .orElseThrow();
        io.runlane.internal.kernel.ClaimedRun parentClaim = claimed.stream()
                .filter(run -> run.run().id().equals(parent))
                .findFirst()
                .orElseThrow();
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch commitPark = new CountDownLatch(1);
        org.springframework.transaction.support.TransactionTemplate transactions =
                new org.springframework.transaction.support.TransactionTemplate(
                        new org.springframework.jdbc.support.JdbcTransactionManager(dataSource));
        Thread park = new Thread(() -> transactions.executeWithoutResult(status -> {
            runlane.engine()
                    .durable()
                    .parking()
                    .parkIfHeld(
                            parent,
                            parentClaim.fencingToken(),
                            "test-worker",
                            io.runlane.internal.wait.WaitRequest.forRun(
                                    child, Instant.now().plus(Duration.ofHours(1)), "racing"));
            parked.countDown();
            try {
                commitPark.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }));
        park.start();
        assertThat(parked.await(20, TimeUnit.SECONDS)).isTrue();
        Thread complete = new Thread(() -> runlane.engine()
                .completions()
                .complete(
                        java.util.List.of(new io.runlane.internal.worker.BatchCompletions.HeldAttempt(
                                child, childClaim.fencingToken())),
                        "test-worker"));
        complete.start();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.jdbc()
                                .queryForObject(
                                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                                + " AND query LIKE 'WITH changed AS%' AND query LIKE ?",
                                        Long.class, "%" + runlane.schema() + ".runs%")
                        > 0);
        commitPark.countDown();
        park.join();
        complete.join();
        assertThat(runlane.run(child).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(runlane.run(parent).runAt())
                .as("the completion's own wake-up ran on a snapshot without the park")
                .isAfter(Instant.now().plus(Duration.ofMinutes(30)));

        runlane.engine().endings().ended(child);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(parent).runAt().isBefore(Instant.now().plusSeconds(1)));
        assertThat(runlane.run(parent).status()).isEqualTo(RunStatus.WAITING);
    }

    @Test
    @DisplayName("S-RS-4: maintenance wakes a WAITING run whose awaited run ended without waking it")
    void maintenanceWakesAStrandedWait() {
        UUID child = runlane.template()
                .trigger("wakeups.quick", new Quick.Payload("ended"))
                .runId();
        runlane.finish(child, RunStatus.SUCCEEDED);
        UUID parent = runlane.template()
                .trigger("wakeups.quick", new Quick.Payload("stranded"))
                .runId();
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET status = 'WAITING', awaiting_run_id = ?,"
                                + " run_at = now() + interval '1 hour' WHERE id = ?",
                        child,
                        parent);

        assertThat(runlane.engine().missedWakeUps().wakeStranded(10)).isEqualTo(1);
        assertThat(runlane.run(parent).runAt()).isBeforeOrEqualTo(Instant.now().plusSeconds(1));
        assertThat(runlane.engine().missedWakeUps().wakeStranded(10)).isZero();
        runlane.startWorker();
        awaitStatus(parent, RunStatus.SUCCEEDED);
    }
}

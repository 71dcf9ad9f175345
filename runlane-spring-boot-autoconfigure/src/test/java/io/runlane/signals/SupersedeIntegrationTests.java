package io.runlane.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code SUPERSEDE} (S-CP-3, S-SK-4): newest wins; a waiting holder is cancelled at once, a running one is asked to
 * cancel while the new run waits for it, and two runs of one key never execute at the same time.
 */
@RunlaneDatabaseTest
class SupersedeIntegrationTests {

    /** One execution of a run: when its handler started and returned (nanoTime). */
    record Execution(UUID runId, String key, long startedNanos, long endedNanos) {}

    static final List<Execution> EXECUTIONS = new CopyOnWriteArrayList<>();

    /** Works until it is asked to cancel, or for {@code millis}; a negative {@code millis} works until cancelled. */
    @Task(id = "supersede.sync", onSingletonConflict = SingletonConflictPolicy.SUPERSEDE)
    public static class Sync implements TaskHandler<Sync.Payload> {

        public record Payload(String key, long millis) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            long started = System.nanoTime();
            long until = started + Duration.ofMillis(payload.millis()).toNanos();
            while (!context.isCancellationRequested() && (payload.millis() < 0 || System.nanoTime() < until)) {
                Thread.sleep(5);
            }
            EXECUTIONS.add(new Execution(context.runId(), payload.key(), started, System.nanoTime()));
        }
    }

    @Pool(size = 40)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("supersede") String schema) {
        EXECUTIONS.clear();
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings,
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(50))
                        .withLease(Duration.ofSeconds(5), Duration.ofMillis(100))
                        .withRecoveryInterval(Duration.ofMillis(200))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Sync());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private TriggerResult sync(String key, long millis) {
        return runlane.template().trigger("supersede.sync", new Sync.Payload(key, millis));
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    private UUID holder(String key) {
        return runlane.template()
                .runs()
                .findActive("supersede.sync", null, key)
                .orElseThrow()
                .id();
    }

    private List<String> details(UUID runId) {
        return runlane.template().runs().events(runId).stream()
                .map(RunEvent::detail)
                .toList();
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
    @DisplayName("S-CP-3: a waiting holder is CANCELLED at once with reason 'superseded by <new run>', in the"
            + " trigger's transaction, and the new run holds the key")
    void waitingHolderIsCancelledAtOnce() {
        UUID owner = sync("k-wait", 0).runId();

        TriggerResult result = sync("k-wait", 0);

        assertThat(result.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(result.run().status()).isEqualTo(RunStatus.QUEUED);
        Run cancelled = runlane.run(owner);
        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(details(owner)).contains("superseded by " + result.runId());
        assertThat(holder("k-wait")).isEqualTo(result.runId());
        assertThatThrownBy(() -> runlane.template()
                        .trigger(
                                "supersede.sync",
                                new Sync.Payload("k-wait", 0),
                                TriggerOptions.builder()
                                        .onSingletonConflict(SingletonConflictPolicy.FAIL)
                                        .build()))
                .isInstanceOfSatisfying(
                        SingletonConflictException.class,
                        ex -> assertThat(ex.ownerRunId()).isEqualTo(result.runId()));
    }

    @Test
    @DisplayName("S-CP-3, S-SK-4: a running holder is asked to cancel, the new run waits for it (holding the key,"
            + " not executing) and runs once the holder ended; their executions do not overlap")
    void runningHolderIsAskedToCancelAndTheNewRunWaits() {
        UUID owner = sync("k-run", -1).runId();
        runlane.startWorker();
        awaitStatus(owner, RunStatus.RUNNING);

        TriggerResult result = sync("k-run", 0);

        assertThat(result.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(result.run().status()).isEqualTo(RunStatus.WAITING);
        assertThat(runlane.run(owner).status()).isIn(RunStatus.CANCELLATION_REQUESTED, RunStatus.CANCELLED);
        assertThat(holder("k-run")).isEqualTo(result.runId());

        awaitStatus(owner, RunStatus.CANCELLED);
        awaitStatus(result.runId(), RunStatus.SUCCEEDED);
        assertThat(details(owner)).contains("superseded by " + result.runId());
        assertNoOverlap("k-run");
    }

    @Test
    @DisplayName("S-CP-3: a holder already asked to cancel is superseded the same way")
    void cancellingHolderIsSuperseded() {
        UUID owner = sync("k-cancelling", -1).runId();
        runlane.startWorker();
        awaitStatus(owner, RunStatus.RUNNING);
        assertThat(runlane.template().runs().cancel(owner, "operator").status())
                .isIn(RunStatus.CANCELLATION_REQUESTED, RunStatus.CANCELLED);

        UUID successor = sync("k-cancelling", 0).runId();

        awaitStatus(owner, RunStatus.CANCELLED);
        awaitStatus(successor, RunStatus.SUCCEEDED);
        assertNoOverlap("k-cancelling");
    }

    @Test
    @DisplayName("S-CP-3: a newer SUPERSEDE cancels a waiting successor at once and waits for the running holder"
            + " itself")
    void newerSupersedeCancelsTheWaitingSuccessor() {
        UUID owner = sync("k-chain", -1).runId();
        ClaimedRun frozen = claim();
        assertThat(frozen.run().id()).isEqualTo(owner);

        UUID second = sync("k-chain", 0).runId();
        TriggerResult third = sync("k-chain", 0);

        assertThat(runlane.run(second).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(details(second)).contains("superseded by " + third.runId());
        assertThat(third.run().status()).isEqualTo(RunStatus.WAITING);
        assertThat(runlane.run(owner).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);

        runlane.engine()
                .outcomes()
                .completeIfHeld(owner, frozen.fencingToken(), "frozen-worker")
                .orElseThrow();
        runlane.startWorker();
        assertThat(runlane.run(owner).status()).isEqualTo(RunStatus.CANCELLED);
        awaitStatus(third.runId(), RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName("S-CP-3, S-SK-4: when the waiting successor is cancelled, the key goes back to the superseded run"
            + " still stopping, so no third run can start while it executes")
    void cancelledSuccessorGivesTheKeyBack() {
        UUID owner = sync("k-back", -1).runId();
        ClaimedRun frozen = claim();
        UUID successor = sync("k-back", 0).runId();
        assertThat(holder("k-back")).isEqualTo(successor);

        runlane.template().runs().cancel(successor, "operator");

        assertThat(holder("k-back")).isEqualTo(owner);
        assertThatThrownBy(() -> runlane.template()
                        .trigger(
                                "supersede.sync",
                                new Sync.Payload("k-back", 0),
                                TriggerOptions.builder()
                                        .onSingletonConflict(SingletonConflictPolicy.FAIL)
                                        .build()))
                .isInstanceOfSatisfying(
                        SingletonConflictException.class,
                        ex -> assertThat(ex.ownerRunId()).isEqualTo(owner));
        TriggerResult newest = sync("k-back", 0);
        assertThat(newest.run().status()).isEqualTo(RunStatus.WAITING);

        runlane.engine()
                .outcomes()
                .completeIfHeld(owner, frozen.fencingToken(), "frozen-worker")
                .orElseThrow();
        runlane.startWorker();
        awaitStatus(newest.runId(), RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName("S-CP-3, S-EX-7: when the superseded holder's worker dies, lease recovery ends it and wakes the"
            + " waiting successor")
    void leaseRecoveryWakesTheSuccessor() {
        UUID owner = sync("k-lease", 0).runId();
        ClaimedRun frozen = runlane.engine()
                .claims()
                .claimDue("frozen-worker", List.of("default"), List.of("supersede.sync"), 1, Duration.ofMillis(200))
                .get(0);
        assertThat(frozen.run().id()).isEqualTo(owner);

        UUID successor = sync("k-lease", 0).runId();
        assertThat(runlane.run(successor).status()).isEqualTo(RunStatus.WAITING);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.engine().leaseRescuer().rescueExpired() > 0);
        assertThat(runlane.run(owner).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(successor).runAt())
                .isBefore(runlane.run(successor).updatedAt().plusSeconds(1));

        runlane.startWorker();
        awaitStatus(successor, RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName("S-CP-3, S-SK-4: a storm of 32 concurrent SUPERSEDE triggers on one key: executions never overlap,"
            + " every run ends, exactly the final holder succeeds and all others are cancelled")
    void supersedeStorm() {
        runlane.startWorker();

        List<Concurrently.Outcome<TriggerResult>> outcomes = Concurrently.run(32, i -> () -> sync("k-storm", 3000));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(outcomes).allMatch(outcome -> outcome.value().created());
        UUID last = holder("k-storm");
        List<UUID> runs =
                outcomes.stream().map(outcome -> outcome.value().runId()).toList();
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        runs.stream().allMatch(run -> runlane.run(run).status().isTerminal()));
        assertThat(runlane.run(last).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(runs)
                .filteredOn(run -> !run.equals(last))
                .allSatisfy(run -> assertThat(runlane.run(run).status()).isEqualTo(RunStatus.CANCELLED));
        assertNoOverlap("k-storm");
    }

    @Test
    @DisplayName("S-CP-5, S-TR-6: batches of SUPERSEDE triggers over shared keys in different orders never deadlock,"
            + " and each key ends with one holder")
    void concurrentSupersedeBatches() {
        List<String> keys = List.of("k-b1", "k-b2", "k-b3");

        List<Concurrently.Outcome<List<TriggerResult>>> outcomes = Concurrently.run(12, i -> () -> {
            List<TriggerRequest> requests = new ArrayList<>();
            for (int k = 0; k < keys.size(); k++) {
                String key = keys.get((i + k) % keys.size());
                requests.add(TriggerRequest.of(
                        "supersede.sync",
                        new Sync.Payload(key, 0),
                        TriggerOptions.builder()
                                .idempotencyKey("b-" + i + "-" + key)
                                .build()));
            }
            return runlane.template().triggerAll(requests);
        });

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        for (String key : keys) {
            assertThat(runlane.jdbc()
                            .queryForObject(
                                    "SELECT count(*) FROM " + runlane.schema()
                                            + ".runs WHERE singleton_key = ? AND finished_at IS NULL",
                                    Long.class,
                                    key))
                    .isEqualTo(1);
        }
    }

    private ClaimedRun claim() {
        return runlane.engine()
                .claims()
                .claimDue("frozen-worker", List.of("default"), List.of("supersede.sync"), 1, Duration.ofMinutes(5))
                .get(0);
    }
}

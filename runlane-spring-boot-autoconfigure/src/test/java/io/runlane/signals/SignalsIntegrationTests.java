package io.runlane.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.InvalidKeyException;
import io.runlane.PayloadValidationException;
import io.runlane.PruneRequest;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunNotFoundException;
import io.runlane.RunSignal;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.SignalOperations;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Signals (S-SG-1..5): a mailbox per run and name, sent in the caller's transaction, consumed first in first out by
 * {@code awaitSignal}, memoized like a step, never lost, never consumed twice.
 */
@RunlaneDatabaseTest
class SignalsIntegrationTests {

    static final Map<UUID, AtomicInteger> EXECUTIONS = new ConcurrentHashMap<>();

    /** Awaits {@code count} signals named {@code approval}; returns their payloads joined, or "timeout". */
    @Task(id = "signals.approver", maxAttempts = 3)
    public static class Approver implements TaskFunction<Approver.Payload, String> {

        public record Payload(int count, long timeoutMillis, boolean failOnceAfterFirst) {}

        public record Approval(String by) {}

        @Override
        public String run(Payload payload, RunContext context) {
            int execution = EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
            List<String> approvals = new ArrayList<>();
            for (int i = 0; i < payload.count(); i++) {
                Optional<Approval> approval =
                        context.awaitSignal("approval", Approval.class, Duration.ofMillis(payload.timeoutMillis()));
                if (approval.isEmpty()) {
                    approvals.add("timeout");
                    continue;
                }
                approvals.add(approval.get().by());
                if (payload.failOnceAfterFirst() && context.attempt() == 1) {
                    throw new IllegalStateException("crash after consuming in execution " + execution);
                }
            }
            return String.join(",", approvals);
        }
    }

    @Pool(size = 40)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private SignalOperations signals;

    @BeforeEach
    void start(@FreshSchema("signals") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings,
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Approver());
        signals = runlane.template().signals();
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private UUID approver(int count, Duration timeout) {
        return approver(count, timeout, false);
    }

    private UUID approver(int count, Duration timeout, boolean failOnce) {
        return runlane.template()
                .trigger("signals.approver", new Approver.Payload(count, timeout.toMillis(), failOnce))
                .runId();
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    private long signalRows() {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".run_signals", Long.class);
    }

    @Test
    @DisplayName("S-SG-4: a signal sent before the run started is consumed by its first awaitSignal")
    void signalSentBeforeStartIsNeverLost() {
        UUID run = approver(1, Duration.ofHours(1));
        signals.send(run, "approval", new Approver.Approval("ann"));

        runlane.startWorker();

        Run done = awaitStatus(run, RunStatus.SUCCEEDED);
        assertThat(done.resultJson()).isEqualTo("\"ann\"");
        assertThat(runlane.template().runs().signals(run))
                .singleElement()
                .satisfies(signal -> assertThat(signal.consumedAt()).isNotNull());
        assertThat(runlane.template().runs().events(run))
                .extracting(RunEvent::type)
                .contains(RunEventType.SIGNAL_CONSUMED)
                .doesNotContain(RunEventType.WAITING);
    }

    @Test
    @DisplayName("S-SG-1, S-SG-4: a run waiting for a signal is WAITING without a lease and wakes when it arrives")
    void signalDuringTheWaitWakesTheRun() {
        UUID run = approver(1, Duration.ofHours(1));
        runlane.startWorker();
        Run waiting = awaitStatus(run, RunStatus.WAITING);
        assertThat(waiting.runAt()).isAfter(waiting.updatedAt().plus(Duration.ofMinutes(59)));

        signals.send(run, "other", new Approver.Approval("nobody"));
        assertThat(runlane.run(run).runAt()).as("another name does not wake it").isEqualTo(waiting.runAt());
        signals.send(run, "approval", new Approver.Approval("bob"));

        assertThat(awaitStatus(run, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"bob\"");
    }

    @Test
    @DisplayName("S-SG-4: after its timeout awaitSignal answers empty; a later signal waits unconsumed until the run"
            + " ends, and a signal to the ended run is refused")
    void awaitSignalTimesOut() {
        UUID run = approver(1, Duration.ofMillis(300));
        runlane.startWorker();

        Run done = awaitStatus(run, RunStatus.SUCCEEDED);

        assertThat(done.resultJson()).isEqualTo("\"timeout\"");
        assertThat(runlane.template().runs().events(run))
                .extracting(RunEvent::type)
                .contains(RunEventType.WAITING);
        assertThatThrownBy(() -> signals.send(run, "approval", new Approver.Approval("late")))
                .isInstanceOf(RunStateException.class);
        assertThat(signalRows()).isZero();
    }

    @Test
    @DisplayName("S-SG-1, S-SG-4: two signals of one name are consumed first in first out")
    void signalsAreConsumedInOrder() {
        UUID run = approver(2, Duration.ofHours(1));
        signals.send(run, "approval", new Approver.Approval("first"));
        signals.send(run, "approval", new Approver.Approval("second"));

        runlane.startWorker();

        assertThat(awaitStatus(run, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"first,second\"");
        assertThat(runlane.template().runs().signals(run))
                .extracting(RunSignal::consumedAt)
                .doesNotContainNull();
    }

    @Test
    @DisplayName("S-SG-4: a failure after consuming a signal replays the same signal; the next one is not consumed"
            + " in its place and none is consumed twice")
    void replayAfterConsumingGetsTheSameSignal() {
        UUID run = approver(2, Duration.ofHours(1), true);
        signals.send(run, "approval", new Approver.Approval("first"));
        signals.send(run, "approval", new Approver.Approval("second"));

        runlane.startWorker();

        Run done = awaitStatus(run, RunStatus.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(done.resultJson()).isEqualTo("\"first,second\"");
        assertThat(runlane.template().runs().events(run))
                .filteredOn(event -> event.type() == RunEventType.SIGNAL_CONSUMED)
                .hasSize(2);
        assertThat(runlane.template().runs().steps(run))
                .filteredOn(step -> step.name().equals("awaitSignal.approval"))
                .extracting(step -> step.occurrence())
                .containsExactly(1, 2);
    }

    @Test
    @DisplayName("S-SG-4: each awaitSignal of one name keeps its own deadline across replays: a wait reached after"
            + " an earlier one's outcome was recorded does not take that earlier wait's deadline")
    void everyAwaitOfANameHasItsOwnDeadline() {
        UUID run = approver(3, Duration.ofHours(1));
        runlane.startWorker();
        Run first = awaitStatus(run, RunStatus.WAITING);

        signals.send(run, "approval", new Approver.Approval("first"));
        Run second = awaitWaitingWithDeadlines(run, 2);
        signals.send(run, "approval", new Approver.Approval("second"));
        Run third = awaitWaitingWithDeadlines(run, 3);

        assertThat(second.runAt()).as("the second wait's deadline").isAfter(first.runAt());
        assertThat(third.runAt()).as("the third wait's deadline").isAfter(second.runAt());
        signals.send(run, "approval", new Approver.Approval("third"));
        assertThat(awaitStatus(run, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"first,second,third\"");
    }

    /** Waits until the run has recorded {@code count} wait deadlines and is waiting again. */
    private Run awaitWaitingWithDeadlines(UUID run, int count) {
        await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> runlane.template().runs().steps(run).stream()
                                .filter(step -> step.name().equals("awaitSignal.approval.deadline"))
                                .count(),
                        recorded -> recorded == count);
        return awaitStatus(run, RunStatus.WAITING);
    }

    @Test
    @DisplayName("S-SG-2: 32 concurrent sends with one deduplication key store one signal; exactly one returns true")
    void deduplicatedSendUnderConcurrencyStoresOne() {
        UUID run = approver(1, Duration.ofHours(1));

        List<Concurrently.Outcome<Boolean>> outcomes = Concurrently.run(
                32, i -> () -> signals.send(run, "approval", new Approver.Approval("caller-" + i), "approval-1"));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(outcomes).filteredOn(Concurrently.Outcome::value).hasSize(1);
        assertThat(runlane.template().runs().signals(run))
                .singleElement()
                .satisfies(signal -> assertThat(signal.deduplicationKey()).isEqualTo("approval-1"));
        assertThat(signals.send(run, "other", new Approver.Approval("x"), "approval-1"))
                .as("the key is per name")
                .isTrue();
    }

    @Test
    @DisplayName("S-SG-1, S-ID-1, S-ID-4: a send to an unknown or terminal run, or with a bad name or payload,"
            + " throws the typed exception and stores nothing")
    void badSendsStoreNothing() {
        UUID run = approver(1, Duration.ofHours(1));
        assertThatThrownBy(() -> signals.send(UUID.randomUUID(), "approval", new Approver.Approval("x")))
                .isInstanceOf(RunNotFoundException.class);
        assertThatThrownBy(() -> signals.send(run, "bad:name", new Approver.Approval("x")))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> signals.send(run, "approval", new Approver.Approval("nul\u0000")))
                .isInstanceOf(PayloadValidationException.class)
                .hasMessageContaining("payload.by");
        assertThatThrownBy(() -> signals.send(run, "approval", null)).isInstanceOf(PayloadValidationException.class);
        runlane.template().runs().cancel(run, "test");
        assertThatThrownBy(() -> signals.send(run, "approval", new Approver.Approval("x")))
                .isInstanceOf(RunStateException.class);
        assertThat(signalRows()).isZero();
    }

    @Test
    @DisplayName("S-SG-1, S-TR-3: a signal sent in a transaction that commits after the run parked still wakes it")
    void signalCommittedAfterTheParkWakesTheRun() {
        UUID run = approver(1, Duration.ofHours(1));
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        transactions.executeWithoutResult(status -> {
            signals.send(run, "approval", new Approver.Approval("late-commit"));
            runlane.startWorker();
            awaitStatus(run, RunStatus.WAITING);
        });

        assertThat(awaitStatus(run, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"late-commit\"");
    }

    @Test
    @DisplayName("S-SG-4: maintenance wakes a run parked on a signal already in its mailbox (a send whose wake-up"
            + " was lost in a crash)")
    void maintenanceWakesARunWhoseSignalArrivedWithoutAWakeUp() {
        UUID run = approver(1, Duration.ofHours(1));
        runlane.startWorker();
        Run waiting = awaitStatus(run, RunStatus.WAITING);
        runlane.jdbc()
                .update(
                        "INSERT INTO " + runlane.schema() + ".run_signals (id, run_id, name, payload, sent_at)"
                                + " VALUES (?, ?, 'approval', '{\"by\": \"crash\"}', now())",
                        UUID.randomUUID(),
                        run);
        assertThat(runlane.run(run).runAt()).isEqualTo(waiting.runAt());

        assertThat(runlane.engine().missedWakeUps().wakeStranded(10)).isEqualTo(1);

        assertThat(awaitStatus(run, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"crash\"");
    }

    @Test
    @DisplayName("S-SG-4: a send that commits while a park on its name is in flight (neither sees the other) still"
            + " wakes the run: the park checks the mailbox again after its commit")
    void sendDuringAnInFlightParkWakesTheRun() {
        UUID run = approver(1, Duration.ofHours(1));
        io.runlane.internal.kernel.ClaimedRun claimed = runlane.engine()
                .claims()
                .claimDue("test-worker", List.of("default"), List.of("signals.approver"), 1, Duration.ofMinutes(5))
                .get(0);
        TransactionTemplate parkTransaction = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        parkTransaction.executeWithoutResult(status -> {
            runlane.engine()
                    .durable()
                    .parking()
                    .parkIfHeld(
                            run,
                            claimed.fencingToken(),
                            "test-worker",
                            io.runlane.internal.wait.WaitRequest.forSignal(
                                    "approval", java.time.Instant.now().plus(Duration.ofHours(1)), "test park"));
            java.util.concurrent.CompletableFuture.runAsync(
                            () -> signals.send(run, "approval", new Approver.Approval("racer")))
                    .join();
        });

        Run parked = runlane.run(run);
        assertThat(parked.status()).isEqualTo(RunStatus.WAITING);
        assertThat(parked.runAt())
                .as("due now, not at the deadline")
                .isBefore(parked.updatedAt().plusSeconds(60));
        runlane.startWorker();
        assertThat(awaitStatus(run, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"racer\"");
    }

    @Test
    @DisplayName("S-SG-1, S-TR-3: a signal sent in a transaction that rolls back is gone")
    void rolledBackSendStoresNothing() {
        UUID run = approver(1, Duration.ofHours(1));
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        transactions.executeWithoutResult(status -> {
            signals.send(run, "approval", new Approver.Approval("never"));
            status.setRollbackOnly();
        });

        assertThat(signalRows()).isZero();
    }

    @Test
    @DisplayName("S-SG-5: cancelling a run waiting for a signal is immediate; signals are pruned with their run")
    void cancelledWaitingRunAndPruning() {
        UUID run = approver(1, Duration.ofHours(1));
        runlane.startWorker();
        awaitStatus(run, RunStatus.WAITING);
        signals.send(run, "other", new Approver.Approval("kept"));

        assertThat(runlane.template().runs().cancel(run, "no").status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(signalRows()).isEqualTo(1);

        runlane.template().runs().prune(PruneRequest.olderThan(Duration.ZERO));

        assertThat(runlane.template().runs().get(run)).isEmpty();
        assertThat(signalRows()).isZero();
    }

    @Test
    @DisplayName("S-SG-3: sendToSingletonOwner delivers to the key's active owner; with none it throws and stores"
            + " nothing")
    void sendToSingletonOwner() {
        UUID owner = runlane.template()
                .trigger(
                        "signals.approver",
                        new Approver.Payload(1, Duration.ofHours(1).toMillis(), false),
                        io.runlane.TriggerOptions.builder()
                                .singletonKey("order-1")
                                .build())
                .runId();

        assertThat(signals.sendToSingletonOwner(
                        "signals.approver", "order-1", "approval", new Approver.Approval("owner")))
                .isEqualTo(owner);
        assertThatThrownBy(() -> signals.sendToSingletonOwner(
                        "signals.approver", "order-2", "approval", new Approver.Approval("none")))
                .isInstanceOf(RunNotFoundException.class);

        runlane.startWorker();
        assertThat(awaitStatus(owner, RunStatus.SUCCEEDED).resultJson()).isEqualTo("\"owner\"");
        assertThat(signalRows()).isEqualTo(1);
    }
}

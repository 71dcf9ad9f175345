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
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.LateClaimAnswers;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A claim whose answer reaches the worker late, as after a network partition (S-EX-30): the claim executed and its
 * lease ran on the database clock meanwhile, so the worker must not start the handler on it, or a run recovered and
 * executed elsewhere would run twice at once (S-EX-1, S-EX-3). The late claim is handed back instead (S-EX-17).
 */
@RunlaneDatabaseTest
class LateClaimAnswerIntegrationTests {

    private static final Duration LEASE = Duration.ofMillis(1500);

    /** Handler entries as {@code key:attempt}. */
    static final List<String> ENTERED = new CopyOnWriteArrayList<>();

    /** Holds the handlers whose payload asks for it until the test ends them; one per test. */
    static volatile CountDownLatch finish = new CountDownLatch(1);

    @Task(id = "late.effect")
    public static class Effect implements TaskHandler<Effect.Payload> {

        public record Payload(String key, boolean hold) {}

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            ENTERED.add(payload.key() + ":" + context.attempt());
            if (payload.hold() && !finish.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never finished by the test");
            }
        }
    }

    /** Fails at once and for good: its failure is recorded with the slot's next claim (S-QC-5). */
    @Task(id = "late.failing", maxAttempts = 1)
    public static class Failing implements TaskHandler<Failing.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {
            throw new IllegalStateException("fails on purpose");
        }
    }

    /** The claims whose handlers started, as {@code runId:fencingToken}. */
    private final List<String> started = new CopyOnWriteArrayList<>();

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private LateClaimAnswers late;

    private TestRunlane runlane;

    private @Nullable TestRunlane other;

    @BeforeEach
    void start(@FreshSchema("late") String schema) {
        ENTERED.clear();
        finish = new CountDownLatch(1);
        late = new LateClaimAnswers(dataSource);
        runlane = TestRunlane.withExecution(
                late,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(LEASE, Duration.ofMillis(300))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                new EngineListener() {
                    @Override
                    public void attemptStarted(ClaimedRun claimed) {
                        started.add(claimed.run().id() + ":" + claimed.fencingToken());
                    }
                },
                new Effect(),
                new Failing());
    }

    @AfterEach
    void stop() {
        finish.countDown();
        late.close();
        if (other != null) {
            other.stop();
        }
        runlane.stop();
    }

    @Test
    @DisplayName("S-EX-30: a claim whose answer arrives after its lease expired is handed back without starting its"
            + " handler, and the run is claimed again at once without spending budget")
    void lateClaimAnswerIsHandedBackNotStarted() {
        late.holdNextClaim();
        UUID runId = runlane.template()
                .trigger("late.effect", new Effect.Payload("alone", false))
                .runId();
        runlane.startWorker();
        late.awaitHeld();
        long lateToken = fencingToken(runId);
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseExpired(runId));

        late.release();

        Run finished = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId), run -> run.status().isTerminal());
        assertThat(finished.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(finished.attempts())
                .as("the handed-back claim spent no attempt")
                .isOne();
        assertThat(started)
                .as("no handler started on the late claim")
                .doesNotContain(runId + ":" + lateToken)
                .hasSize(1);
        assertThat(ENTERED).containsExactly("alone:1");
        List<RunEvent> events = runlane.template().runs().events(runId);
        assertThat(events)
                .extracting(RunEvent::type)
                .containsExactly(
                        RunEventType.CREATED,
                        RunEventType.CLAIMED,
                        RunEventType.HANDED_BACK,
                        RunEventType.CLAIMED,
                        RunEventType.SUCCEEDED);
        assertThat(events.get(2).detail()).contains("S-EX-30");
    }

    @Test
    @DisplayName("S-EX-30, S-EX-1: a late claim answer arriving while another instance runs the recovered run starts"
            + " no second execution")
    void lateClaimAnswerStartsNoSecondExecution(@Pool(size = 8) HikariDataSource otherDataSource) {
        late.holdNextClaim();
        UUID runId = runlane.template()
                .trigger("late.effect", new Effect.Payload("recovered", true))
                .runId();
        runlane.startWorker();
        late.awaitHeld();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseExpired(runId));
        assertThat(runlane.engine().leaseRescuer().rescueExpired()).isOne();
        other = runlane.instanceOn(otherDataSource).startWorker();
        await().atMost(Duration.ofSeconds(10)).until(() -> ENTERED.contains("recovered:2"));

        Instant released = Instant.now();
        late.release();

        await().atMost(Duration.ofSeconds(10))
                .alias("the worker dealt with the late answer: its poll returned and nothing of it runs")
                .until(() -> {
                    Instant lastPoll = runlane.engine().worker().lastPoll();
                    return lastPoll != null
                            && lastPoll.isAfter(released)
                            && runlane.engine().worker().inFlight() == 0;
                });
        assertThat(ENTERED).as("only the recovered attempt ran").containsExactly("recovered:2");
        finish.countDown();
        Run finished = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId), run -> run.status().isTerminal());
        assertThat(finished.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(finished.attempts()).isEqualTo(2);
        assertThat(ENTERED).containsExactly("recovered:2");
    }

    @Test
    @DisplayName("S-EX-30, S-EX-1: a late claim answer arriving while this worker itself runs the recovered run's next"
            + " attempt leaves that attempt's lease to the heartbeats: it is handed back, and the run runs once")
    void lateClaimAnswerLeavesTheSameWorkersLaterAttemptLeased() {
        late.holdNextClaim();
        UUID runId = runlane.template()
                .trigger("late.effect", new Effect.Payload("same", true))
                .runId();
        runlane.startWorker();
        late.awaitHeld();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseExpired(runId));
        assertThat(runlane.engine().leaseRescuer().rescueExpired()).isOne();
        // the poller still waits for the held answer: a run of a higher priority than the recovered one starts on its
        // trigger (S-EX-36, S-PR-2) and fails, and its slot claims the recovered run with that failure (S-QC-5)
        runlane.template()
                .trigger(
                        "late.failing",
                        new Failing.Payload(0),
                        TriggerOptions.builder().priority(5).build());
        await().atMost(Duration.ofSeconds(10)).until(() -> ENTERED.contains("same:2"));

        Instant released = Instant.now();
        late.release();

        await().atMost(Duration.ofSeconds(10))
                .alias("the worker dealt with the late answer: its poll returned, and only the later attempt runs")
                .until(() -> {
                    Instant lastPoll = runlane.engine().worker().lastPoll();
                    return lastPoll != null
                            && lastPoll.isAfter(released)
                            && runlane.engine().worker().inFlight() == 1;
                });
        await().during(LEASE.multipliedBy(2))
                .atMost(LEASE.multipliedBy(4))
                .alias("the running attempt's lease is still extended by the heartbeats")
                .until(() -> !leaseExpired(runId));
        finish.countDown();
        Run finished = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId), run -> run.status().isTerminal());
        assertThat(finished.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(finished.attempts()).isEqualTo(2);
        assertThat(ENTERED).containsExactly("same:2");
    }

    private long fencingToken(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT fencing_token FROM " + runlane.schema() + ".runs WHERE id = ? AND status = 'RUNNING'",
                        Long.class,
                        runId);
    }

    private boolean leaseExpired(UUID runId) {
        return Boolean.TRUE.equals(runlane.jdbc()
                .queryForObject(
                        "SELECT lease_expires_at < clock_timestamp() FROM " + runlane.schema() + ".runs WHERE id = ?",
                        Boolean.class,
                        runId));
    }
}

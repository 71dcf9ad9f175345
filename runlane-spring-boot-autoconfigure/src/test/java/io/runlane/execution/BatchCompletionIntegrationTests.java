package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.worker.BatchCompletions;
import io.runlane.internal.worker.BatchCompletions.HeldAttempt;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-15: completions written many per statement, fenced, with keys and events, and all written on stop. */
@RunlaneDatabaseTest
class BatchCompletionIntegrationTests {

    @Task(id = "batch.quick")
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(int index) {}

        static final AtomicInteger RAN = new AtomicInteger();

        @Override
        public void run(Payload payload, RunContext context) {
            RAN.incrementAndGet();
        }
    }

    /** Runs until the test releases it, so that the worker keeps holding an attempt and sending heartbeats. */
    @Task(id = "batch.slow")
    public static class Slow implements TaskHandler<Slow.Payload> {

        public record Payload(int index) {}

        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            release.await(60, TimeUnit.SECONDS);
        }
    }

    @Pool(size = 16)
    private HikariDataSource dataSource;

    @FreshSchema("batch")
    private String schema;

    @BeforeEach
    void start() {
        Quick.RAN.set(0);
    }

    private ClaimedRun claim(TestRunlane runlane, String taskId, UUID runId) {
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("worker-a", List.of("default"), List.of(taskId), 1, Duration.ofMinutes(1));
        assertThat(claimed)
                .singleElement()
                .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));
        return claimed.get(0);
    }

    @Test
    @DisplayName("S-EX-15, S-EX-3, S-IK-3, S-IK-5, S-CA-2: one statement completes the held attempts and refuses the"
            + " one that lost its run")
    void batchCompletesHeldAttemptsAndRefusesLostOnes() {
        TestRunlane runlane = TestRunlane.start(
                dataSource, schema, new TestTasks.ConfirmOrder(), new TestTasks.BuildReport(), new Quick());
        UUID retained = runlane.template()
                .trigger("orders.confirm", new TestTasks.ConfirmOrder.Payload("o-1", 1))
                .runId();
        ClaimedRun retainedClaim = claim(runlane, "orders.confirm", retained);
        UUID activeMode = runlane.template()
                .trigger("reports.build", new TestTasks.BuildReport.Payload("r-1"))
                .runId();
        ClaimedRun activeModeClaim = claim(runlane, "reports.build", activeMode);
        UUID cancelled =
                runlane.template().trigger("batch.quick", new Quick.Payload(1)).runId();
        ClaimedRun cancelledClaim = claim(runlane, "batch.quick", cancelled);
        runlane.template().runs().cancel(cancelled, "operator");
        UUID lost =
                runlane.template().trigger("batch.quick", new Quick.Payload(2)).runId();
        ClaimedRun lostClaim = claim(runlane, "batch.quick", lost);
        runlane.jdbc().update("UPDATE " + schema + ".runs SET fencing_token = fencing_token + 1 WHERE id = ?", lost);
        long eventsBefore = runlane.rowCounts().events();

        BatchCompletions completions = runlane.engine().completions();
        Map<UUID, RunStatus> completed = completions.complete(
                List.of(held(retainedClaim), held(activeModeClaim), held(cancelledClaim), held(lostClaim)), "worker-a");

        assertThat(completed)
                .containsOnly(
                        Map.entry(retained, RunStatus.SUCCEEDED),
                        Map.entry(activeMode, RunStatus.SUCCEEDED),
                        Map.entry(cancelled, RunStatus.CANCELLED));
        assertThat(runlane.run(lost).status())
                .as("the refused attempt changed nothing")
                .isEqualTo(RunStatus.RUNNING);
        assertThat(runlane.rowCounts().events())
                .as("one event per completed run")
                .isEqualTo(eventsBefore + 3);
        assertThat(runlane.template().runs().events(retained)).last().satisfies(event -> {
            assertThat(event.type()).isEqualTo(RunEventType.SUCCEEDED);
            assertThat(event.actor()).isEqualTo("worker-a");
        });
        assertThat(runlane.template().runs().events(cancelled))
                .extracting(RunEvent::type)
                .last()
                .isEqualTo(RunEventType.CANCELLED);
        assertThat(runlane.retainedUntil("orders.confirm", "order.o-1"))
                .as("S-IK-3: a succeeded owner keeps its key for the TTL")
                .isNotNull();
        assertThat(runlane.hasKeyRow("reports.build", "report.r-1"))
                .as("S-IK-5: an 'active'-mode owner releases its key")
                .isFalse();
        assertThat(completions.complete(List.of(held(retainedClaim)), "worker-a"))
                .as("a second completion of the same attempt is refused")
                .isEmpty();
    }

    @Test
    @DisplayName("S-EX-15, S-EX-8: every completion of a returned handler is written before stop returns")
    void stopWritesEveryWaitingCompletion() {
        TestRunlane runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults().withWorker(8, Duration.ofMillis(50)),
                EngineListener.NONE,
                new Quick());
        List<UUID> runIds = IntStream.range(0, 2_000)
                .mapToObj(i -> runlane.template()
                        .trigger("batch.quick", new Quick.Payload(i))
                        .runId())
                .toList();
        runlane.startWorker();

        await().atMost(Duration.ofSeconds(60)).until(() -> Quick.RAN.get() >= runIds.size());
        runlane.stop();

        assertThat(runlane.jdbc()
                        .queryForList(
                                "SELECT status FROM " + schema + ".runs WHERE task_id = 'batch.quick'", String.class))
                .as("no run is left RUNNING once the worker stopped")
                .hasSize(runIds.size())
                .containsOnly("SUCCEEDED");
        assertThat(Quick.RAN).hasValue(runIds.size());
    }

    @Test
    @DisplayName("Finding 6, S-EX-15, S-EX-20, S-EX-2: a completion the database refuses for longer than the lease"
            + " keeps its lease and is written once the database takes it; the handler runs once")
    void unwritableCompletionKeepsItsLeaseUntilWritten() {
        TestRunlane runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(50))
                        .withLease(Duration.ofMillis(1500), Duration.ofMillis(300))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withRecoveryInterval(Duration.ofMillis(200)),
                EngineListener.NONE,
                new Quick(),
                new Slow());
        runlane.jdbc().execute("CREATE SEQUENCE " + schema + ".refusals");
        runlane.jdbc()
                .execute("CREATE FUNCTION " + schema + ".refuse_success() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN PERFORM nextval('" + schema + ".refusals');"
                        + " RAISE EXCEPTION 'success refused by the test'; END $$");
        runlane.jdbc()
                .execute("CREATE TRIGGER refuse_success BEFORE UPDATE ON " + schema + ".runs FOR EACH ROW"
                        + " WHEN (NEW.status = 'SUCCEEDED') EXECUTE FUNCTION " + schema + ".refuse_success()");
        runlane.startWorker().startMaintenance();
        UUID runId =
                runlane.template().trigger("batch.quick", new Quick.Payload(1)).runId();
        try {
            // The writer retries after 100, 200, 400, 800, 1600 and 2000 ms: eight refusals span twice the lease.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runlane.jdbc()
                                    .queryForObject(
                                            "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + schema
                                                    + ".refusals",
                                            Long.class)
                            >= 8);
            assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.RUNNING);
            runlane.jdbc().execute("DROP TRIGGER refuse_success ON " + schema + ".runs");

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runlane.run(runId).status() == RunStatus.SUCCEEDED);
            assertThat(Quick.RAN).as("the handler ran once").hasValue(1);
            assertThat(runlane.template().runs().events(runId))
                    .extracting(RunEvent::type)
                    .doesNotContain(RunEventType.LEASE_EXPIRED);
        } finally {
            runlane.stop();
        }
    }

    @Test
    @DisplayName("Finding 6, S-EX-20: a completion the database keeps refusing holds back only its own run")
    void refusedCompletionHoldsBackOnlyItsOwnRun() {
        TestRunlane runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(50))
                        .withLease(Duration.ofMillis(1500), Duration.ofMillis(300))
                        .withRecoveryInterval(Duration.ofMillis(200)),
                EngineListener.NONE,
                new Quick(),
                new Slow());
        runlane.jdbc().execute("CREATE SEQUENCE " + schema + ".refusals");
        runlane.jdbc()
                .execute("CREATE FUNCTION " + schema + ".refuse_first() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN PERFORM nextval('" + schema + ".refusals');"
                        + " RAISE EXCEPTION 'success of the first refused by the test'; END $$");
        runlane.jdbc()
                .execute("CREATE TRIGGER refuse_first BEFORE UPDATE ON " + schema + ".runs FOR EACH ROW"
                        + " WHEN (NEW.status = 'SUCCEEDED' AND NEW.payload ->> 'index' = '0')"
                        + " EXECUTE FUNCTION " + schema + ".refuse_first()");
        List<UUID> runIds = IntStream.range(0, 4)
                .mapToObj(index -> runlane.template()
                        .trigger("batch.quick", new Quick.Payload(index))
                        .runId())
                .toList();
        runlane.startWorker().startMaintenance();
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runIds.subList(1, 4).stream()
                            .allMatch(runId -> runlane.run(runId).status() == RunStatus.SUCCEEDED));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runlane.jdbc()
                                    .queryForObject(
                                            "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + schema
                                                    + ".refusals",
                                            Long.class)
                            >= 8);
            assertThat(runlane.run(runIds.get(0)).status())
                    .as("the refused run keeps its lease")
                    .isEqualTo(RunStatus.RUNNING);
            runlane.jdbc().execute("DROP TRIGGER refuse_first ON " + schema + ".runs");

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runlane.run(runIds.get(0)).status() == RunStatus.SUCCEEDED);
            assertThat(Quick.RAN).as("every handler ran once").hasValue(4);
        } finally {
            runlane.stop();
        }
    }

    private static HeldAttempt held(ClaimedRun claimed) {
        return new HeldAttempt(claimed.run().id(), claimed.fencingToken());
    }
}

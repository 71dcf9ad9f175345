package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.StepNotFoundException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** S-RV-3: a fork is a new linked run that replays its source's steps before a chosen step and runs the rest anew. */
class ForkIntegrationTests {

    /** Calls of each step function, by "<run id>/<step>". */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** The step ids each step function saw, by "<run id>/<step>". */
    static final Map<String, List<String>> STEP_IDS = new ConcurrentHashMap<>();

    /** Orders whose {@code ship} step fails: the bug a fork is meant to get past once it is fixed. */
    static final Set<String> FAILING = ConcurrentHashMap.newKeySet();

    /** Reserves, charges and ships, each a step; one attempt, so a failure of {@code ship} fails the run. */
    @Task(id = "fork.checkout", maxAttempts = 1)
    public static class Checkout implements TaskHandler<Checkout.Payload> {

        public record Payload(String order) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.step("reserve", String.class, step -> called(step.runId(), "reserve", step.stepId()));
            context.step("charge", String.class, step -> called(step.runId(), "charge", step.stepId()));
            context.step("ship", step -> {
                called(step.runId(), "ship", step.stepId());
                if (FAILING.contains(payload.order())) {
                    throw new IllegalStateException("carrier down");
                }
            });
        }

        /** Counts the call and answers a result that names the run that computed it. */
        private static String called(UUID runId, String step, String stepId) {
            CALLS.computeIfAbsent(runId + "/" + step, key -> new AtomicInteger())
                    .incrementAndGet();
            STEP_IDS.computeIfAbsent(runId + "/" + step, key -> new CopyOnWriteArrayList<>())
                    .add(stepId);
            return step + " by " + runId;
        }
    }

    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start() {
        dataSource = TestDatabase.newDataSource(8);
        runlane = TestRunlane.withExecution(
                        dataSource,
                        TestDatabase.freshSchema(dataSource, "fork"),
                        settings -> settings.withQueues(Set.of("other")),
                        ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(100)),
                        EngineListener.NONE,
                        new Checkout(),
                        new SendMail())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
        dataSource.close();
    }

    private static int calls(UUID runId, String step) {
        return CALLS.getOrDefault(runId + "/" + step, new AtomicInteger()).get();
    }

    private static List<String> stepIds(UUID runId, String step) {
        return STEP_IDS.getOrDefault(runId + "/" + step, List.of());
    }

    private static Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    /** A checkout run that ended with {@code status}: {@code FAILED} when its ship step failed. */
    private static Run checkout(RunStatus status) {
        String order = "o-" + UUID.randomUUID();
        if (status == RunStatus.FAILED) {
            FAILING.add(order);
        }
        UUID runId = runlane.template()
                .trigger("fork.checkout", new Checkout.Payload(order))
                .runId();
        Run ended = awaitStatus(runId, status);
        FAILING.remove(order);
        return ended;
    }

    /** A mail run that waits an hour to be due, so that no worker runs it. */
    private static Run waitingMail(TriggerOptions.Builder options) {
        return runlane.template()
                .trigger(
                        "mail.send",
                        new SendMail.Payload("a@example.com"),
                        options.delay(Duration.ofHours(1)).build())
                .run();
    }

    private static List<RunStep> steps(UUID runId) {
        return runlane.template().runs().steps(runId);
    }

    private static List<RunEvent> events(UUID runId) {
        return runlane.template().runs().events(runId);
    }

    private static long stepRows() {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".run_steps", Long.class);
    }

    private static long forksOf(UUID sourceRunId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE source_run_id = ?",
                        Long.class,
                        sourceRunId);
    }

    @Test
    @DisplayName("S-RV-3: a fork of a run whose ship step failed replays reserve and charge and runs ship again with"
            + " the fork's step id; the source is untouched")
    void forkOfAFailedRunReplaysTheRecordedStepsAndRunsTheFailedOneAnew() {
        Run source = checkout(RunStatus.FAILED);
        List<RunStep> sourceSteps = steps(source.id());
        List<RunEvent> sourceEvents = events(source.id());
        assertThat(sourceSteps).extracting(RunStep::name).containsExactly("reserve", "charge");

        Run fork = runlane.template().runs().fork(source.id(), null);

        assertThat(fork.id()).isNotEqualTo(source.id());
        assertThat(fork.sourceType()).isEqualTo("FORK");
        assertThat(fork.sourceRunId()).isEqualTo(source.id());
        assertThat(fork.taskId()).isEqualTo(source.taskId());
        assertThat(fork.payloadJson()).isEqualTo(source.payloadJson());
        awaitStatus(fork.id(), RunStatus.SUCCEEDED);
        assertThat(calls(fork.id(), "reserve")).isZero();
        assertThat(calls(fork.id(), "charge")).isZero();
        assertThat(calls(fork.id(), "ship")).isEqualTo(1);
        assertThat(stepIds(fork.id(), "ship"))
                .containsExactly(fork.id() + ".ship.1")
                .doesNotContainAnyElementsOf(stepIds(source.id(), "ship"));
        assertThat(steps(fork.id()))
                .extracting(RunStep::name, RunStep::stepId, RunStep::resultJson)
                .containsExactly(
                        tuple("reserve", fork.id() + ".reserve.1", "\"reserve by " + source.id() + "\""),
                        tuple("charge", fork.id() + ".charge.1", "\"charge by " + source.id() + "\""),
                        tuple("ship", fork.id() + ".ship.1", null));
        assertThat(runlane.run(source.id())).isEqualTo(source);
        assertThat(steps(source.id())).isEqualTo(sourceSteps);
        assertThat(events(source.id())).isEqualTo(sourceEvents);
    }

    @Test
    @DisplayName("S-RV-3: a fork from a recorded step copies exactly the steps recorded before it; that step and the"
            + " ones after run again with the fork's step ids")
    void forkFromAStepCopiesTheStepsBeforeIt() {
        Run source = checkout(RunStatus.FAILED);

        Run fork = runlane.template().runs().fork(source.id(), "charge");

        awaitStatus(fork.id(), RunStatus.SUCCEEDED);
        assertThat(calls(fork.id(), "reserve")).isZero();
        assertThat(calls(fork.id(), "charge")).isEqualTo(1);
        assertThat(calls(fork.id(), "ship")).isEqualTo(1);
        assertThat(stepIds(fork.id(), "charge")).containsExactly(fork.id() + ".charge.1");
        assertThat(steps(fork.id()))
                .extracting(RunStep::name, RunStep::resultJson)
                .containsExactly(
                        tuple("reserve", "\"reserve by " + source.id() + "\""),
                        tuple("charge", "\"charge by " + fork.id() + "\""),
                        tuple("ship", null));
        assertThat(steps(fork.id()).get(0).completedAt())
                .as("a copied step keeps its recording time")
                .isEqualTo(steps(source.id()).get(0).completedAt());
    }

    @Test
    @DisplayName("S-RV-3: a fork with no step of a succeeded run replays every step: no step function is called")
    void forkWithoutAStepReplaysEveryStep() {
        Run source = checkout(RunStatus.SUCCEEDED);

        Run fork = runlane.template().runs().fork(source.id(), null, TriggerOptions.none());

        assertThat(steps(fork.id()))
                .as("copied in the transaction that created the run")
                .extracting(RunStep::name)
                .containsExactly("reserve", "charge", "ship");
        awaitStatus(fork.id(), RunStatus.SUCCEEDED);
        assertThat(calls(fork.id(), "reserve")).isZero();
        assertThat(calls(fork.id(), "charge")).isZero();
        assertThat(calls(fork.id(), "ship")).isZero();
        assertThat(steps(fork.id()))
                .extracting(RunStep::stepId)
                .containsExactly(fork.id() + ".reserve.1", fork.id() + ".charge.1", fork.id() + ".ship.1");
        assertThat(steps(fork.id()))
                .extracting(RunStep::resultJson)
                .isEqualTo(steps(source.id()).stream().map(RunStep::resultJson).toList());
    }

    @Test
    @DisplayName("S-RV-3: a fork from the first step copies nothing and runs every step again")
    void forkFromTheFirstStepRunsEverythingAgain() {
        Run source = checkout(RunStatus.SUCCEEDED);

        Run fork = runlane.template().runs().fork(source.id(), "reserve");

        awaitStatus(fork.id(), RunStatus.SUCCEEDED);
        assertThat(calls(fork.id(), "reserve")).isEqualTo(1);
        assertThat(calls(fork.id(), "charge")).isEqualTo(1);
        assertThat(calls(fork.id(), "ship")).isEqualTo(1);
        assertThat(steps(fork.id()))
                .extracting(RunStep::resultJson)
                .containsExactly("\"reserve by " + fork.id() + "\"", "\"charge by " + fork.id() + "\"", null);
    }

    @Test
    @DisplayName("S-RV-3: a step the source never recorded (a typo, or the step that failed) is not found, and"
            + " nothing is written")
    void unknownStepIsNotFoundAndWritesNothing() {
        Run source = checkout(RunStatus.FAILED);
        TestRunlane.RowCounts before = runlane.rowCounts();
        long stepsBefore = stepRows();

        for (String step : List.of("refund", "ship")) {
            assertThatExceptionOfType(StepNotFoundException.class)
                    .isThrownBy(() -> runlane.template().runs().fork(source.id(), step))
                    .satisfies(ex -> {
                        assertThat(ex.code()).isEqualTo("step_not_found");
                        assertThat(ex.runId()).isEqualTo(source.id());
                        assertThat(ex.stepName()).isEqualTo(step);
                        assertThat(ex.getMessage()).contains("S-RV-3");
                    });
        }

        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(stepRows()).isEqualTo(stepsBefore);
        assertThat(forksOf(source.id())).isZero();
    }

    @Test
    @DisplayName("S-RV-3: an active run is not forked and an unknown one is not found; nothing is written")
    void activeAndUnknownRunsAreNotForked() {
        Run active = waitingMail(TriggerOptions.builder());
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RunStateException.class)
                .isThrownBy(() -> runlane.template().runs().fork(active.id(), null))
                .satisfies(ex -> assertThat(ex.getMessage()).contains("S-RV-3"));
        assertThatExceptionOfType(RunNotFoundException.class)
                .isThrownBy(() -> runlane.template().runs().fork(UUID.randomUUID(), null));

        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(runlane.run(active.id())).isEqualTo(active);
    }

    @Test
    @DisplayName("S-RV-3, S-OP-9: a fork of a cancelled run keeps its queue and concurrency key and takes no key of"
            + " the source's; the options override each field")
    void forkKeepsThePartitionAndTakesKeysOnlyFromTheOptions() {
        Run source = waitingMail(TriggerOptions.builder()
                .queue("other")
                .concurrencyKey("c")
                .idempotencyKey("i-" + UUID.randomUUID())
                .singletonKey("s-" + UUID.randomUUID()));
        runlane.template().runs().cancel(source.id(), "not now");

        Run plain = runlane.template().runs().fork(source.id(), null);
        Run overridden = runlane.template()
                .runs()
                .fork(
                        source.id(),
                        null,
                        TriggerOptions.builder()
                                .queue("default")
                                .concurrencyKey("d")
                                .idempotencyKey("fork-i")
                                .singletonKey("fork-s")
                                .delay(Duration.ofHours(1))
                                .build());

        assertThat(plain.queue()).isEqualTo("other");
        assertThat(plain.concurrencyKey()).isEqualTo("c");
        assertThat(plain.idempotencyKey()).isNull();
        assertThat(plain.singletonKey()).isNull();
        assertThat(overridden.queue()).isEqualTo("default");
        assertThat(overridden.concurrencyKey()).isEqualTo("d");
        assertThat(overridden.idempotencyKey()).isEqualTo("fork-i");
        assertThat(overridden.singletonKey()).isEqualTo("fork-s");
        assertThat(overridden.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(overridden.sourceType()).isEqualTo("FORK");
        awaitStatus(plain.id(), RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName("S-RV-3, S-IK-2: a fork whose idempotency key has an owner returns the owner and copies nothing"
            + " into it")
    void forkWithAnOwnedIdempotencyKeyReturnsTheOwner() {
        Run source = checkout(RunStatus.SUCCEEDED);
        TriggerOptions keyed = TriggerOptions.builder()
                .idempotencyKey("owned-" + UUID.randomUUID())
                .delay(Duration.ofHours(1))
                .build();
        Run owner = runlane.template().runs().fork(source.id(), "charge", keyed);
        long stepsBefore = stepRows();

        Run answer = runlane.template().runs().fork(source.id(), null, keyed);

        assertThat(answer.id()).isEqualTo(owner.id());
        assertThat(steps(owner.id())).extracting(RunStep::name).containsExactly("reserve");
        assertThat(stepRows()).isEqualTo(stepsBefore);
        assertThat(forksOf(source.id())).isEqualTo(1);
    }

    @Test
    @DisplayName("S-RV-3, S-TR-3: a fork in a caller's transaction is invisible, to workers too, until it commits,"
            + " and a rollback leaves neither the run nor its steps")
    void forkJoinsTheCallersTransaction() {
        Run source = checkout(RunStatus.FAILED);
        TestRunlane.RowCounts before = runlane.rowCounts();
        long stepsBefore = stepRows();
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        UUID rolledBack = transactions.execute(status -> {
            Run fork = runlane.template().runs().fork(source.id(), null);
            assertThat(steps(fork.id())).as("visible inside").hasSize(2);
            assertThat(CompletableFuture.supplyAsync(() ->
                                    runlane.template().runs().get(fork.id()).isPresent())
                            .join())
                    .as("visible to another connection before commit")
                    .isFalse();
            status.setRollbackOnly();
            return fork.id();
        });

        assertThat(runlane.template().runs().get(rolledBack)).isEmpty();
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(stepRows()).isEqualTo(stepsBefore);
        assertThat(calls(rolledBack, "ship")).isZero();

        UUID committed = transactions.execute(
                status -> runlane.template().runs().fork(source.id(), null).id());
        awaitStatus(committed, RunStatus.SUCCEEDED);
        assertThat(calls(committed, "charge")).isZero();
        assertThat(calls(committed, "ship")).isEqualTo(1);
    }

    @Test
    @DisplayName("S-RV-3: when copying the steps fails, the run is rolled back with them")
    void failedCopyLeavesNoRun() {
        Run source = checkout(RunStatus.FAILED);
        String table = runlane.schema() + ".run_steps";
        runlane.jdbc()
                .execute("CREATE FUNCTION " + runlane.schema() + ".refuse_copy() RETURNS trigger AS $$"
                        + " BEGIN RAISE EXCEPTION 'copy refused'; END $$ LANGUAGE plpgsql");
        runlane.jdbc()
                .execute("CREATE TRIGGER refuse_copy BEFORE INSERT ON " + table + " FOR EACH ROW WHEN"
                        + " (NEW.step_id LIKE '%.charge.1') EXECUTE FUNCTION " + runlane.schema() + ".refuse_copy()");
        TestRunlane.RowCounts before = runlane.rowCounts();
        long stepsBefore = stepRows();
        try {
            assertThatExceptionOfType(RuntimeException.class)
                    .isThrownBy(() -> runlane.template().runs().fork(source.id(), null))
                    .withMessageContaining("copy refused");
        } finally {
            runlane.jdbc().execute("DROP TRIGGER refuse_copy ON " + table);
            runlane.jdbc().execute("DROP FUNCTION " + runlane.schema() + ".refuse_copy()");
        }

        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(stepRows()).isEqualTo(stepsBefore);
        assertThat(forksOf(source.id())).isZero();
    }

    @Test
    @DisplayName("S-RV-3, S-RV-1: a source resumed while it is being forked is not forked: the fork waits for the"
            + " resume's transaction and is rolled back")
    void sourceResumedMeanwhileIsNotForked() {
        Run source = checkout(RunStatus.FAILED);
        TestRunlane.RowCounts before = runlane.rowCounts();
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        CompletableFuture<Run> fork = transactions.execute(status -> {
            runlane.template().runs().resume(source.id());
            CompletableFuture<Run> forking = CompletableFuture.supplyAsync(
                    () -> runlane.template().runs().fork(source.id(), null));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> runlane.jdbc()
                                    .queryForObject(
                                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                                    + " AND query LIKE '%run_steps%'",
                                            Long.class)
                            > 0);
            return forking;
        });

        assertThat(fork)
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(RunStateException.class);
        assertThat(forksOf(source.id())).isZero();
        assertThat(runlane.rowCounts().runs()).isEqualTo(before.runs());
        awaitStatus(source.id(), RunStatus.SUCCEEDED);
    }
}

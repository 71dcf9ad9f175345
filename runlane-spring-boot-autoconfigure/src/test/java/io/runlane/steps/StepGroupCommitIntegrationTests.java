package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.step.AttemptFencedOut;
import io.runlane.internal.step.AttemptSteps;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-ST-16: steps that attempts on many threads record at the same moment share statements and commits, and each is
 * recorded, fenced and answered as if it had been recorded alone. Each thread plays the handler of its attempts
 * ({@link AttemptSteps}, as the worker's attempt threads do); a row trigger notes the transaction that recorded each
 * step, so that the tests can tell that steps were grouped.
 */
@RunlaneDatabaseTest
class StepGroupCommitIntegrationTests {

    private static final String TASK = "stepgroups.work";

    /** Recording threads: more than the recorder's solo lanes, so that their steps are grouped. */
    private static final int THREADS = 16;

    /** Notes, for every recorded step, the transaction that recorded it. */
    private static final String NOTE_TRANSACTIONS = """
            CREATE TABLE %1$s.step_transactions (run_id uuid NOT NULL, xid bigint NOT NULL);
            CREATE FUNCTION %1$s.note_step_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO %1$s.step_transactions VALUES (NEW.run_id, txid_current());
                RETURN NEW;
            END $$;
            CREATE TRIGGER note_step_transaction AFTER INSERT ON %1$s.run_steps
                FOR EACH ROW EXECUTE FUNCTION %1$s.note_step_transaction();
            """;

    /** Never run by a worker: the tests claim its runs and play their handlers. */
    @Task(id = TASK)
    public static class Work implements TaskHandler<Work.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = THREADS + 4)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("stepgroups") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new Work());
        runlane.jdbc().execute(NOTE_TRANSACTIONS.formatted(schema));
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    @Test
    @DisplayName("S-ST-16, S-ST-1, S-ST-6, S-RL-2: 16 threads recording 10 steps of each of 160 runs at once record"
            + " every step exactly once, with each run's STEP_COMPLETED events gap-free and in step order, and share"
            + " commits")
    void concurrentStepsAreRecordedOnceInSharedCommits() {
        List<ClaimedRun> runs = claim(160);

        List<Concurrently.Outcome<Integer>> outcomes =
                Concurrently.run(THREADS, thread -> () -> playHandlers(runs, thread, 10));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        for (ClaimedRun run : runs) {
            assertRecordedSteps(run, 10);
        }
        assertGrouped(1_600);
    }

    @Test
    @DisplayName("S-ST-16, S-ST-11: attempts that lost their runs are refused their steps, and end, while the steps"
            + " that other attempts record at the same moment are recorded")
    void lostAttemptsAreRefusedWhileOthersAreRecorded() {
        List<ClaimedRun> runs = claim(128);
        Set<UUID> lost = runs.stream()
                .filter(run -> runs.indexOf(run) % 4 == 1)
                .map(run -> run.run().id())
                .collect(Collectors.toSet());
        lost.forEach(runId -> runlane.finish(runId, RunStatus.CANCELLED));

        List<Concurrently.Outcome<Integer>> outcomes =
                Concurrently.run(THREADS, thread -> () -> playHandlers(runs, thread, 5));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(outcomes.stream().mapToInt(Concurrently.Outcome::value).sum())
                .as("attempts refused their first step")
                .isEqualTo(lost.size());
        for (ClaimedRun run : runs) {
            if (lost.contains(run.run().id())) {
                assertThat(runlane.template().runs().steps(run.run().id())).isEmpty();
                assertThat(runlane.template().runs().events(run.run().id()))
                        .noneMatch(event -> event.type() == RunEventType.STEP_COMPLETED);
            } else {
                assertRecordedSteps(run, 5);
            }
        }
        assertGrouped(5 * (runs.size() - lost.size()));
    }

    @Test
    @DisplayName("S-ST-16: a step whose run's row another transaction holds waits for that lock alone; the steps other"
            + " attempts record meanwhile are recorded without waiting for it")
    void lockedRunHoldsUpOnlyItsOwnStep() throws Exception {
        List<ClaimedRun> runs = claim(1 + 4 * THREADS);
        ClaimedRun locked = runs.get(0);
        List<ClaimedRun> others = runs.subList(1, runs.size());

        FutureTask<Integer> lockedStep = new FutureTask<>(() -> playHandlers(List.of(locked), 0, 1));
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement(
                    "SELECT id FROM " + runlane.schema() + ".runs WHERE id = ? FOR NO KEY UPDATE")) {
                lock.setObject(1, locked.run().id());
                lock.executeQuery().close();
            }
            new Thread(lockedStep, "locked-run-handler").start();
            await().atMost(Duration.ofSeconds(10))
                    .alias("the locked run's step waiting for the row lock")
                    .until(() -> lockWaiters() == 1);

            List<Concurrently.Outcome<Integer>> outcomes =
                    Concurrently.run(THREADS, thread -> () -> playHandlers(others, thread, 5));

            assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
            others.forEach(run -> assertRecordedSteps(run, 5));
            assertThat(lockedStep).as("the locked run's step, still waiting").isNotDone();
            other.rollback();
        }
        assertThat(lockedStep.get(10, TimeUnit.SECONDS)).as("refused steps").isZero();
        assertRecordedSteps(locked, 1);
    }

    @Test
    @DisplayName("S-ST-16, S-ST-11: when the database refuses a group's statement, each of its steps is recorded"
            + " alone, and each caller still gets its own answer")
    void refusedGroupsAreRecordedAlone() {
        String schema = runlane.schema();
        runlane.jdbc().execute("""
                CREATE SEQUENCE %1$s.refused_groups;
                CREATE FUNCTION %1$s.refuse_groups() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF strpos(current_query(), 'WITH ORDINALITY') > 0 THEN
                        PERFORM nextval('%1$s.refused_groups');
                        RAISE EXCEPTION 'group refused' USING ERRCODE = 'lock_not_available';
                    END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER refuse_groups BEFORE INSERT ON %1$s.run_steps
                    FOR EACH ROW EXECUTE FUNCTION %1$s.refuse_groups();
                """.formatted(schema));
        List<ClaimedRun> runs = claim(64);
        Set<UUID> lost = runs.stream()
                .filter(run -> runs.indexOf(run) % 8 == 3)
                .map(run -> run.run().id())
                .collect(Collectors.toSet());
        lost.forEach(runId -> runlane.finish(runId, RunStatus.CANCELLED));

        List<Concurrently.Outcome<Integer>> outcomes =
                Concurrently.run(THREADS, thread -> () -> playHandlers(runs, thread, 5));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(runlane.jdbc().queryForObject("SELECT is_called FROM " + schema + ".refused_groups", Boolean.class))
                .as("a group statement was refused")
                .isTrue();
        assertThat(outcomes.stream().mapToInt(Concurrently.Outcome::value).sum())
                .as("attempts refused their first step")
                .isEqualTo(lost.size());
        for (ClaimedRun run : runs) {
            if (lost.contains(run.run().id())) {
                assertThat(runlane.template().runs().steps(run.run().id())).isEmpty();
            } else {
                assertRecordedSteps(run, 5);
            }
        }
    }

    /**
     * Plays the handlers of the runs this thread owns (every {@value #THREADS}th from {@code first}), one after
     * another, each recording {@code steps} steps whose results are their occurrence numbers; returns how many of them
     * were refused as fenced out.
     */
    private int playHandlers(List<ClaimedRun> runs, int first, int steps) throws Exception {
        int refused = 0;
        for (int i = first; i < runs.size(); i += THREADS) {
            AttemptSteps attempt = runlane.engine().durable().open(runs.get(i), "worker");
            attempt.handlerStarted();
            try {
                for (int occurrence = 1; occurrence <= steps; occurrence++) {
                    int expected = occurrence;
                    assertThat(attempt.step("s", Integer.class, step -> expected))
                            .isEqualTo(expected);
                }
            } catch (AttemptFencedOut ex) {
                assertThat(attempt.fencedOut()).isTrue();
                refused++;
            } finally {
                attempt.handlerEnded();
            }
        }
        return refused;
    }

    private List<ClaimedRun> claim(int count) {
        List<ClaimedRun> claimed = new ArrayList<>();
        for (int from = 0; from < count; from += 100) {
            runlane.template()
                    .triggerAll(IntStream.range(from, Math.min(count, from + 100))
                            .mapToObj(i -> TriggerRequest.of(TASK, new Work.Payload(i)))
                            .toList());
        }
        await().atMost(Duration.ofSeconds(10)).alias("every run claimed").until(() -> {
            claimed.addAll(runlane.engine()
                    .claims()
                    .claimDue(
                            "worker",
                            List.of("default"),
                            List.of(TASK),
                            count - claimed.size(),
                            Duration.ofMinutes(5)));
            return claimed.size() == count;
        });
        return claimed;
    }

    /** The run's steps 1..{@code steps}, each once, and its events: created, claimed, then one per step, in order. */
    private void assertRecordedSteps(ClaimedRun run, int steps) {
        UUID runId = run.run().id();
        assertThat(runlane.template().runs().steps(runId))
                .as("steps of run %s", runId)
                .extracting(RunStep::occurrence, RunStep::resultJson)
                .containsExactlyElementsOf(IntStream.rangeClosed(1, steps)
                        .mapToObj(occurrence -> org.assertj.core.groups.Tuple.tuple(occurrence, "" + occurrence))
                        .toList());
        List<RunEvent> events = runlane.template().runs().events(runId);
        assertThat(events)
                .as("events of run %s", runId)
                .extracting(RunEvent::sequence)
                .containsExactlyElementsOf(
                        IntStream.rangeClosed(1, steps + 2).boxed().toList());
        assertThat(events.subList(2, events.size()))
                .as("step events of run %s", runId)
                .extracting(RunEvent::type, RunEvent::detail)
                .containsExactlyElementsOf(IntStream.rangeClosed(1, steps)
                        .mapToObj(occurrence ->
                                org.assertj.core.groups.Tuple.tuple(RunEventType.STEP_COMPLETED, "s #" + occurrence))
                        .toList());
    }

    /** Every recorded step was noted once, and fewer transactions than steps recorded them: steps shared commits. */
    private void assertGrouped(int recordedSteps) {
        Map<String, Object> noted = runlane.jdbc()
                .queryForMap("SELECT count(*) AS steps, count(DISTINCT xid) AS transactions FROM " + runlane.schema()
                        + ".step_transactions");
        assertThat(((Number) noted.get("steps")).longValue()).isEqualTo(recordedSteps);
        assertThat(((Number) noted.get("transactions")).longValue())
                .as("transactions that recorded the %d steps", recordedSteps)
                .isLessThan(recordedSteps);
    }

    private long lockWaiters() {
        Long waiting = runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND strpos(query, 'run_steps') > 0 AND datname = current_database()",
                        Long.class);
        return waiting == null ? 0 : waiting;
    }
}

package io.runlane.internal.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.assertj.core.groups.Tuple.tuple;
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
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The steps' group statement (S-ST-16) against PostgreSQL: what one statement records of a group that mixes held
 * attempts with one fenced out, a step recorded before and a run another transaction holds locked; the events of
 * several steps of one run in one group; and that the statement keeps a generic plan.
 */
@RunlaneDatabaseTest
class GroupedStepRecordsIntegrationTests {

    private static final String TASK = "stepgroups.work";

    /** Never run by a worker: the tests claim its runs and record their steps themselves. */
    @Task(id = TASK)
    public static class Work implements TaskHandler<Work.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 6)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private StepStore store;

    @BeforeEach
    void start(@FreshSchema("stepgroups") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new Work());
        store = runlane.engine().steps();
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    @Test
    @DisplayName("S-ST-16, S-ST-3, S-ST-11: one group statement records the held attempts' steps, each with its run's"
            + " next event, and leaves out, without waiting, a fenced-out attempt's step, a step recorded before and a"
            + " run whose row another transaction holds; each of those callers then gets its own answer alone")
    void groupRecordsWhatItCanWithoutWaiting() throws Exception {
        List<ClaimedRun> runs = claim(5);
        ClaimedRun held = runs.get(0);
        ClaimedRun fenced = runs.get(1);
        ClaimedRun recordedBefore = runs.get(2);
        ClaimedRun locked = runs.get(3);
        ClaimedRun alsoHeld = runs.get(4);
        runlane.finish(fenced.run().id(), RunStatus.CANCELLED);
        assertThat(store.recordIfHeld(step(recordedBefore, 1, "\"before\""))).isTrue();
        List<StepRecord> group = List.of(
                step(held, 1, "\"held\""),
                step(fenced, 1, "\"fenced\""),
                step(recordedBefore, 1, "\"again\""),
                step(locked, 1, "\"locked\""),
                step(alsoHeld, 1, null));

        StepRecorder recorder = new StepRecorder(store);
        CompletableFuture<Boolean> lockedAlone;
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            lockRow(other, locked.run().id());

            Set<Integer> recorded = CompletableFuture.supplyAsync(() -> store.recordAllIfHeld(group))
                    .get(10, TimeUnit.SECONDS);
            assertThat(recorded).containsExactlyInAnyOrder(0, 4);

            lockedAlone = CompletableFuture.supplyAsync(() -> recorder.recordIfHeld(group.get(3)));
            await().atMost(Duration.ofSeconds(10))
                    .alias("the locked run's step recorded alone, waiting for the row lock")
                    .until(() -> runlane.jdbc()
                                    .queryForObject(
                                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                                    + " AND strpos(query, 'run_steps') > 0 AND datname = current_database()",
                                            Long.class)
                            == 1);
            assertThat(recorder.recordIfHeld(group.get(1)))
                    .as("the fenced-out attempt's step, alone")
                    .isFalse();
            assertThat(recorder.recordIfHeld(group.get(2)))
                    .as("the step recorded before, alone")
                    .isFalse();
            assertThat(lockedAlone)
                    .as("the locked run's step waits for its own lock")
                    .isNotDone();
            other.rollback();
        }
        assertThat(lockedAlone.get(10, TimeUnit.SECONDS)).isTrue();

        assertThat(results(held)).containsExactly("\"held\"");
        assertThat(results(fenced)).isEmpty();
        assertThat(results(recordedBefore)).containsExactly("\"before\"");
        assertThat(results(locked)).containsExactly("\"locked\"");
        assertThat(results(alsoHeld)).containsExactly((String) null);
        for (ClaimedRun run : List.of(held, recordedBefore, locked, alsoHeld)) {
            assertThat(runlane.template().runs().events(run.run().id()))
                    .as(
                            "run %s: one step event after its claim, no gap",
                            run.run().id())
                    .extracting(RunEvent::type, RunEvent::sequence)
                    .containsExactly(
                            tuple(RunEventType.CREATED, 1),
                            tuple(RunEventType.CLAIMED, 2),
                            tuple(RunEventType.STEP_COMPLETED, 3));
        }
        assertThat(runlane.template().runs().events(fenced.run().id()))
                .noneMatch(event -> event.type() == RunEventType.STEP_COMPLETED);
    }

    @Test
    @DisplayName("S-ST-16, S-RL-2: steps of one run in one group are recorded with consecutive events in the group's"
            + " order, beside another run's")
    void stepsOfOneRunInOneGroupGetConsecutiveEvents() {
        List<ClaimedRun> runs = claim(2);
        ClaimedRun first = runs.get(0);
        ClaimedRun second = runs.get(1);

        Set<Integer> recorded = store.recordAllIfHeld(
                List.of(step(first, 1, "1"), step(first, 2, "2"), step(second, 1, "10"), step(first, 3, "3")));

        assertThat(recorded).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(runlane.template().runs().events(first.run().id()))
                .extracting(RunEvent::type, RunEvent::sequence)
                .containsExactly(
                        tuple(RunEventType.CREATED, 1),
                        tuple(RunEventType.CLAIMED, 2),
                        tuple(RunEventType.STEP_COMPLETED, 3),
                        tuple(RunEventType.STEP_COMPLETED, 4),
                        tuple(RunEventType.STEP_COMPLETED, 5));
        assertThat(runlane.template().runs().events(first.run().id()).subList(2, 5))
                .extracting(RunEvent::detail)
                .containsExactly("s #1", "s #2", "s #3");
        assertThat(runlane.template().runs().events(second.run().id()))
                .extracting(RunEvent::type, RunEvent::sequence)
                .containsExactly(
                        tuple(RunEventType.CREATED, 1),
                        tuple(RunEventType.CLAIMED, 2),
                        tuple(RunEventType.STEP_COMPLETED, 3));
        assertThat(results(first)).containsExactly("1", "2", "3");
    }

    @Test
    @DisplayName("S-ST-16: the group statement keeps one generic plan per group size instead of being planned on"
            + " every execution")
    void groupStatementIsPlannedOnce() throws Exception {
        assumeThat(runlane.jdbc().queryForObject("SELECT current_setting('server_version_num')::int", Integer.class))
                .as("pg_prepared_statements counts generic and custom plans from PostgreSQL 14")
                .isGreaterThanOrEqualTo(140_000);
        int executions = 20;
        List<ClaimedRun> runs = claim(3);
        try (HikariDataSource sessionPool = TestDatabase.newDataSource(1);
                Connection connection = sessionPool.getConnection()) {
            SingleConnectionDataSource single = new SingleConnectionDataSource(connection, true);
            StepStore session = new StepStore(JdbcClient.create(single), new SqlTemplate(runlane.schema()));
            for (int occurrence = 1; occurrence <= executions; occurrence++) {
                int next = occurrence;
                assertThat(session.recordAllIfHeld(
                                runs.stream().map(run -> step(run, next, null)).toList()))
                        .hasSize(runs.size());
            }
            Map<String, Object> plans = new JdbcTemplate(single)
                    .queryForMap("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                            + " WHERE strpos(statement, 'WITH ORDINALITY') > 0");
            long generic = ((Number) plans.get("generic_plans")).longValue();
            long custom = ((Number) plans.get("custom_plans")).longValue();
            assertThat(custom).as("custom plans (generic: %d)", generic).isLessThanOrEqualTo(5);
            assertThat(generic).as("generic plans (custom: %d)", custom).isGreaterThanOrEqualTo(executions - 10);
        }
    }

    private List<ClaimedRun> claim(int count) {
        runlane.template()
                .triggerAll(IntStream.range(0, count)
                        .mapToObj(i -> TriggerRequest.of(TASK, new Work.Payload(i)))
                        .toList());
        List<ClaimedRun> claimed = new ArrayList<>(runlane.engine()
                .claims()
                .claimDue("worker", List.of("default"), List.of(TASK), count, Duration.ofMinutes(5)));
        assertThat(claimed).hasSize(count);
        return claimed;
    }

    private static StepRecord step(ClaimedRun run, int occurrence, @Nullable String json) {
        UUID runId = run.run().id();
        return new StepRecord(
                runId, run.fencingToken(), "worker", "s", occurrence, StepIds.stepId(runId, "s", occurrence), json);
    }

    private List<String> results(ClaimedRun run) {
        return runlane.template().runs().steps(run.run().id()).stream()
                .map(RunStep::resultJson)
                .toList();
    }

    private void lockRow(Connection connection, UUID runId) throws Exception {
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT id FROM " + runlane.schema() + ".runs WHERE id = ? FOR NO KEY UPDATE")) {
            lock.setObject(1, runId);
            lock.executeQuery().close();
        }
    }
}

package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.OverlapPolicy;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunStatus;
import io.runlane.ScheduleDefinition;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code CANCEL_OTHER} supersedes the schedule's previous run like {@code SUPERSEDE} (S-SC-6, S-CP-3, S-CP-5, issue
 * 25): the new occurrence's run is always created and, while the run it cancelled still executes, waits for it, also
 * when the task has a singleton key, when that run was already stopping, and when a third occurrence comes while the
 * second still waits.
 */
@RunlaneDatabaseTest
class CancelOtherSupersedesIntegrationTests {

    /** A task with a singleton key from its payload. */
    @Task(id = "cancelother.keyed")
    static class Keyed implements TaskHandler<Keyed.Payload> {

        record Payload(String key) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A task without keys. */
    @Task(id = "cancelother.plain")
    static class Plain implements TaskHandler<Plain.Payload> {

        record Payload(String key) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 10)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("cancelother") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                new ScheduleSettings(Duration.ofSeconds(1), Duration.ofHours(4)),
                ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(50)),
                EngineListener.NONE,
                new Keyed(),
                new Plain());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private String schedule(String taskId) {
        String id = "cancel-other-" + UUID.randomUUID();
        runlane.template()
                .schedules()
                .upsert(ScheduleDefinition.builder(id, taskId)
                        .every(Duration.ofMinutes(1))
                        .payload(Map.of("key", id))
                        .overlap(OverlapPolicy.CANCEL_OTHER)
                        .build());
        return id;
    }

    /** Makes the schedule due now and fires it. */
    private void fire(String id) {
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".schedules SET next_fire_at = now() - interval '1 second'"
                                + " WHERE id = ?",
                        id);
        runlane.engine().schedules().firer().fireDue();
    }

    private List<Run> runsOf(String scheduleId) {
        return runlane
                .jdbc()
                .queryForList(
                        "SELECT id FROM " + runlane.schema() + ".runs WHERE idempotency_key LIKE ? ORDER BY created_at",
                        UUID.class,
                        "schedule." + scheduleId + ".%")
                .stream()
                .map(runlane::run)
                .toList();
    }

    private UUID awaitedBy(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT awaiting_run_id FROM " + runlane.schema() + ".runs WHERE id = ?", UUID.class, runId);
    }

    private ClaimedRun claimFrozen(String taskId) {
        return runlane.engine()
                .claims()
                .claimDue("frozen-worker", List.of("default"), List.of(taskId), 1, Duration.ofMinutes(5))
                .get(0);
    }

    private void complete(ClaimedRun frozen) {
        runlane.engine()
                .outcomes()
                .completeIfHeld(frozen.run().id(), frozen.fencingToken(), "frozen-worker")
                .orElseThrow();
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    @Test
    @DisplayName("S-SC-6, S-CP-5: CANCEL_OTHER on a task with a singleton key creates the new occurrence's run, which"
            + " waits for the running run it cancelled and runs once that one ended")
    void keyedTaskGetsItsNewRun() {
        String id = schedule("cancelother.keyed");
        fire(id);
        ClaimedRun first = claimFrozen("cancelother.keyed");

        fire(id);

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(2);
        UUID second = runs.get(1).id();
        assertThat(runlane.run(first.run().id()).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        assertThat(runs.get(1).status()).isEqualTo(RunStatus.WAITING);
        assertThat(awaitedBy(second)).isEqualTo(first.run().id());
        assertThat(runlane.template().schedules().get(id).orElseThrow())
                .satisfies(info -> assertThat(info.skippedCount()).isZero())
                .satisfies(info -> assertThat(info.lastRunId()).isEqualTo(second));
        assertThat(runlane.template().runs().findActive("cancelother.keyed", null, id))
                .map(Run::id)
                .contains(second);

        complete(first);
        assertThat(runlane.run(first.run().id()).status()).isEqualTo(RunStatus.CANCELLED);
        runlane.startWorker();
        awaitStatus(second, RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName("S-SC-6, S-CP-3: CANCEL_OTHER supersedes the holder of the task's singleton key even when the"
            + " schedule did not create it")
    void keyedTaskSupersedesAForeignHolder() {
        String id = schedule("cancelother.keyed");
        UUID manual = runlane.template()
                .trigger("cancelother.keyed", new Keyed.Payload(id))
                .runId();
        ClaimedRun frozen = claimFrozen("cancelother.keyed");
        assertThat(frozen.run().id()).isEqualTo(manual);

        fire(id);

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).status()).isEqualTo(RunStatus.WAITING);
        assertThat(awaitedBy(runs.get(0).id())).isEqualTo(manual);
        assertThat(runlane.run(manual).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        assertThat(runlane.template().runs().events(manual))
                .extracting(RunEvent::detail)
                .contains("superseded by " + runs.get(0).id());
    }

    @Test
    @DisplayName("S-SC-6: a third occurrence, fired while the second still waits for the running first, cancels the"
            + " second and waits for the first too")
    void thirdOccurrenceWaitsForTheRunningFirst() {
        String id = schedule("cancelother.plain");
        fire(id);
        ClaimedRun first = claimFrozen("cancelother.plain");
        fire(id);

        fire(id);

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(3);
        assertThat(runs.get(1).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runs.get(2).status()).isEqualTo(RunStatus.WAITING);
        assertThat(awaitedBy(runs.get(2).id())).isEqualTo(first.run().id());

        complete(first);
        runlane.startWorker();
        awaitStatus(runs.get(2).id(), RunStatus.SUCCEEDED);
    }

    @Test
    @DisplayName(
            "S-SC-6: the new occurrence's run waits for a previous run that an operator had already asked to" + " stop")
    void newRunWaitsForAPreviousRunAlreadyStopping() {
        String id = schedule("cancelother.plain");
        fire(id);
        ClaimedRun first = claimFrozen("cancelother.plain");
        runlane.template().runs().cancel(first.run().id(), "operator");
        assertThat(runlane.run(first.run().id()).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);

        fire(id);

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(2);
        assertThat(runs.get(1).status()).isEqualTo(RunStatus.WAITING);
        assertThat(awaitedBy(runs.get(1).id())).isEqualTo(first.run().id());
    }
}

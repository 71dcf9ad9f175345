package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.OverlapPolicy;
import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleNotFoundException;
import io.runlane.ScheduleOperations;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Schedules (S-SC-2..5) against real PostgreSQL. Firing is driven by calling the firer directly after moving a
 * schedule's stored next fire time into the past, so no test waits for real time to pass.
 */
@RunlaneDatabaseTest
class ScheduleIntegrationTests {

    @Pool(size = 10)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static ScheduleOperations schedules;

    private static final Reports REPORTS = new Reports();

    /** Records the firer's reports to the engine listener (the meters' source). */
    static final class Reports implements EngineListener {

        final Map<String, List<Duration>> fired = new java.util.concurrent.ConcurrentHashMap<>();

        final Map<String, Integer> skipped = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public void scheduleFired(String scheduleId, String taskId, Duration lag) {
            fired.computeIfAbsent(scheduleId, id -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(lag);
        }

        @Override
        public void scheduleSkipped(String scheduleId, String taskId, ScheduleSkipReason reason) {
            skipped.merge(scheduleId, 1, Integer::sum);
        }
    }

    @BeforeAll
    static void start(@FreshSchema("schedules") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                new ScheduleSettings(Duration.ofSeconds(1), Duration.ofHours(4)),
                ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(100)),
                REPORTS,
                new ScheduleTasks.Report(),
                new ScheduleTasks.Slow());
        schedules = runlane.template().schedules();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    @AfterEach
    void releaseSlowRuns() {
        ScheduleTasks.Slow.release.countDown();
        ScheduleTasks.Slow.release = new CountDownLatch(1);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static ScheduleDefinition.Builder report(String id) {
        return ScheduleDefinition.builder(id, "schedules.report")
                .every(Duration.ofMinutes(1))
                .payload(Map.of("name", "daily", "copies", 2));
    }

    /** Moves the schedule's next fire time this far into the past, as if no instance had run meanwhile. */
    private static void moveNextFireBack(String id, Duration age) {
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema()
                                + ".schedules SET next_fire_at = now() - ? * interval '1 millisecond'"
                                + " WHERE id = ?",
                        age.toMillis(),
                        id);
    }

    private static Instant nextFireAt(String id) {
        return schedules.get(id).orElseThrow().nextFireAt();
    }

    private static List<Run> runsOf(String scheduleId) {
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

    private static long scheduleRows() {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".schedules", Long.class);
    }

    @Test
    @DisplayName("S-SC-2: a due occurrence creates one run keyed by schedule and occurrence, and moves the next fire")
    void dueOccurrenceCreatesOneRun() {
        String id = unique("fire");
        schedules.upsert(report(id).build());
        moveNextFireBack(id, Duration.ofSeconds(2));
        Instant due = nextFireAt(id);

        runlane.engine().schedules().firer().fireDue();
        runlane.engine().schedules().firer().fireDue();

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).idempotencyKey()).isEqualTo("schedule." + id + "." + due.toEpochMilli());
        assertThat(runs.get(0).taskId()).isEqualTo("schedules.report");
        ScheduleInfo info = schedules.get(id).orElseThrow();
        assertThat(info.lastFireAt()).isEqualTo(due);
        assertThat(info.lastRunId()).isEqualTo(runs.get(0).id());
        assertThat(info.lastRunStatus()).isEqualTo(RunStatus.QUEUED);
        assertThat(info.nextFireAt()).isEqualTo(due.plus(Duration.ofMinutes(1)));
    }

    @Test
    @DisplayName("S-SC-3: SKIP creates nothing while the previous run is active and counts the skip")
    void skipWhilePreviousRunActive() {
        String id = unique("skip");
        schedules.upsert(report(id).overlap(OverlapPolicy.SKIP).build());
        moveNextFireBack(id, Duration.ofSeconds(1));
        runlane.engine().schedules().firer().fireDue();
        moveNextFireBack(id, Duration.ofSeconds(1));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id)).hasSize(1);
        assertThat(schedules.get(id).orElseThrow().skippedCount()).isEqualTo(1);
        assertThat(REPORTS.skipped.get(id))
                .as("reported for runlane.schedule.skips")
                .isEqualTo(1);
        assertThat(REPORTS.fired.get(id))
                .as("reported for runlane.schedule.fires and runlane.schedule.lag")
                .singleElement()
                .satisfies(lag -> assertThat(lag).isBetween(Duration.ofMillis(900), Duration.ofMinutes(1)));

        runlane.finish(runsOf(id).get(0).id(), RunStatus.SUCCEEDED);
        moveNextFireBack(id, Duration.ofSeconds(1));
        runlane.engine().schedules().firer().fireDue();
        assertThat(runsOf(id))
                .as("the previous run ended, so the next occurrence fires")
                .hasSize(2);
    }

    @Test
    @DisplayName("S-SC-3: ALLOW creates a run per occurrence even while the previous one runs")
    void allowOverlaps() {
        String id = unique("allow");
        schedules.upsert(report(id).overlap(OverlapPolicy.ALLOW).build());
        moveNextFireBack(id, Duration.ofSeconds(1));
        runlane.engine().schedules().firer().fireDue();
        moveNextFireBack(id, Duration.ofSeconds(1));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id))
                .hasSize(2)
                .allSatisfy(run -> assertThat(run.status()).isEqualTo(RunStatus.QUEUED));
        assertThat(schedules.get(id).orElseThrow().skippedCount()).isZero();
    }

    @Test
    @DisplayName("S-SC-3, S-CP-3: SKIP and CANCEL_OTHER against a handler slower than the interval; the new run of"
            + " CANCEL_OTHER waits for the running predecessor to stop")
    void overlapWithSlowHandler() {
        String skip = unique("slow-skip");
        String cancel = unique("slow-cancel");
        schedules.upsert(ScheduleDefinition.builder(skip, "schedules.slow")
                .every(Duration.ofSeconds(1))
                .payload(Map.of("label", "skip"))
                .build());
        schedules.upsert(ScheduleDefinition.builder(cancel, "schedules.slow")
                .every(Duration.ofSeconds(1))
                .payload(Map.of("label", "cancel"))
                .overlap(OverlapPolicy.CANCEL_OTHER)
                .build());
        runlane.startWorker();
        try {
            moveNextFireBack(skip, Duration.ofMillis(200));
            moveNextFireBack(cancel, Duration.ofMillis(200));
            runlane.engine().schedules().firer().fireDue();
            UUID skipFirst = runsOf(skip).get(0).id();
            UUID cancelFirst = runsOf(cancel).get(0).id();
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(List.of(runlane.run(skipFirst), runlane.run(cancelFirst)))
                            .extracting(Run::status)
                            .containsOnly(RunStatus.RUNNING));

            moveNextFireBack(skip, Duration.ofMillis(200));
            moveNextFireBack(cancel, Duration.ofMillis(200));
            runlane.engine().schedules().firer().fireDue();

            assertThat(runsOf(skip)).hasSize(1);
            assertThat(schedules.get(skip).orElseThrow().skippedCount()).isEqualTo(1);
            List<Run> cancelRuns = runsOf(cancel);
            assertThat(cancelRuns).hasSize(2);
            assertThat(schedules.get(cancel).orElseThrow().lastRunId())
                    .isEqualTo(cancelRuns.get(1).id());
            assertThat(runlane.run(cancelFirst).status())
                    .as("a running predecessor is asked to stop")
                    .isIn(RunStatus.CANCELLATION_REQUESTED, RunStatus.CANCELLED);
            if (runlane.run(cancelFirst).status() == RunStatus.CANCELLATION_REQUESTED) {
                assertThat(runlane.run(cancelRuns.get(1).id()).status())
                        .as("S-CP-3: the new run waits for its stopping predecessor")
                        .isEqualTo(RunStatus.WAITING);
            }
            ScheduleTasks.Slow.release.countDown();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.run(cancelFirst).status().isTerminal());
            Run second = await().atMost(Duration.ofSeconds(20))
                    .until(
                            () -> runlane.run(cancelRuns.get(1).id()),
                            run -> run.status().isTerminal());
            assertThat(second.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(runlane.template().runs().attempts(second.id()).get(0).startedAt())
                    .as("the new run started after its predecessor ended")
                    .isAfterOrEqualTo(runlane.run(cancelFirst).finishedAt());
        } finally {
            ScheduleTasks.Slow.release.countDown();
            runlane.engine().worker().stop();
        }
    }

    @Test
    @DisplayName("S-SC-3, S-SC-6: CANCEL_OTHER cancels a waiting predecessor at once and creates the new run")
    void cancelOtherCancelsWaitingPredecessor() {
        String id = unique("cancel-waiting");
        schedules.upsert(report(id).overlap(OverlapPolicy.CANCEL_OTHER).build());
        moveNextFireBack(id, Duration.ofSeconds(1));
        runlane.engine().schedules().firer().fireDue();
        moveNextFireBack(id, Duration.ofSeconds(1));

        runlane.engine().schedules().firer().fireDue();

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(2);
        assertThat(runlane.run(runs.get(0).id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runs.get(1).status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-SC-4, S-SC-5: a paused schedule fires nothing; resumed, its missed occurrence is caught up")
    void pauseAndResume() {
        String id = unique("pause");
        schedules.upsert(report(id).build());
        schedules.pause(id);
        moveNextFireBack(id, Duration.ofMinutes(5));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id)).isEmpty();
        assertThat(schedules.get(id).orElseThrow().paused()).isTrue();

        schedules.resume(id);
        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id))
                .as("LATEST: one run for the newest missed occurrence")
                .hasSize(1);
        assertThat(schedules.get(id).orElseThrow().paused()).isFalse();
        assertThat(nextFireAt(id)).isAfter(Instant.now().minusSeconds(5));
        assertThatThrownBy(() -> schedules.pause(unique("absent"))).isInstanceOf(ScheduleNotFoundException.class);
        assertThatThrownBy(() -> schedules.resume(unique("absent"))).isInstanceOf(ScheduleNotFoundException.class);
    }

    @Test
    @DisplayName("S-SC-5: an upsert that keeps the expression keeps the next fire time; a new expression recomputes it")
    void upsertKeepsOrRecomputesNextFire() {
        String id = unique("upsert");
        ScheduleInfo created = schedules.upsert(report(id).build());
        moveNextFireBack(id, Duration.ofSeconds(-600));
        Instant moved = nextFireAt(id);

        ScheduleInfo changedPayload = schedules.upsert(
                report(id).payload(Map.of("name", "weekly", "copies", 3)).build());
        assertThat(changedPayload.nextFireAt()).isEqualTo(moved);
        assertThat(changedPayload.declared()).isFalse();

        ScheduleInfo changedCron = schedules.upsert(ScheduleDefinition.builder(id, "schedules.report")
                .cron("0 0 12 * * MON")
                .zone(ZoneId.of("Asia/Tokyo"))
                .payload(Map.of("name", "weekly", "copies", 3))
                .build());
        assertThat(changedCron.nextFireAt()).isNotEqualTo(moved);
        assertThat(changedCron.nextFireAt().atZone(ZoneId.of("Asia/Tokyo")).getHour())
                .isEqualTo(12);
        assertThat(changedCron.expression()).isEqualTo("0 0 12 * * MON");
        assertThat(created.expression()).isEqualTo("every 1m");
        assertThat(schedules.list()).extracting(ScheduleInfo::id).contains(id);
    }

    @Test
    @DisplayName("S-SC-5: delete removes a run-time schedule and leaves its runs")
    void deleteKeepsRuns() {
        String id = unique("delete");
        schedules.upsert(report(id).build());
        moveNextFireBack(id, Duration.ofSeconds(1));
        runlane.engine().schedules().firer().fireDue();

        assertThat(schedules.delete(id)).isTrue();
        assertThat(schedules.delete(id)).isFalse();

        assertThat(schedules.get(id)).isEmpty();
        assertThat(runsOf(id)).hasSize(1);
    }

    @Test
    @DisplayName(
            "S-SC-5: triggerNow runs the task outside the sequence: no occurrence key, next fire and last run kept")
    void triggerNowOutsideTheSequence() {
        String id = unique("now");
        ScheduleInfo before = schedules.upsert(report(id).build());

        TriggerResult result = schedules.triggerNow(id);
        TriggerResult again = schedules.triggerNow(id);

        assertThat(result.created()).isTrue();
        assertThat(again.runId()).isNotEqualTo(result.runId());
        assertThat(result.run().idempotencyKey()).isNull();
        assertThat(result.run().taskId()).isEqualTo("schedules.report");
        ScheduleInfo after = schedules.get(id).orElseThrow();
        assertThat(after.nextFireAt()).isEqualTo(before.nextFireAt());
        assertThat(after.lastRunId()).isNull();
        assertThat(after.lastFireAt()).isNull();
        assertThatThrownBy(() -> schedules.triggerNow(unique("absent"))).isInstanceOf(ScheduleNotFoundException.class);
    }

    @Test
    @DisplayName("S-SC-5: a schedule overdue by more than three polls is listed in health details")
    void overdueScheduleIsListedForHealth() {
        String id = unique("overdue");
        schedules.upsert(report(id).build());
        moveNextFireBack(id, Duration.ofSeconds(2));
        assertThat(runlane.engine().schedules().overdue(3)).doesNotContain(id);

        moveNextFireBack(id, Duration.ofSeconds(10));

        assertThat(runlane.engine().schedules().overdue(3)).contains(id);
        io.runlane.autoconfigure.actuate.RunlaneHealthIndicator health =
                new io.runlane.autoconfigure.actuate.RunlaneHealthIndicator(
                        runlane.engine().statistics(),
                        List.of("default"),
                        null,
                        null,
                        null,
                        Duration.ofMinutes(1),
                        () -> true,
                        Duration.ofSeconds(5),
                        () -> runlane.engine().schedules().overdue(3));
        assertThat(health.health().getDetails()).containsKey("overdueSchedules");
        assertThat(String.valueOf(health.health().getDetails().get("overdueSchedules")))
                .contains(id);
        schedules.pause(id);
        assertThat(runlane.engine().schedules().overdue(3))
                .as("a paused schedule is not overdue")
                .doesNotContain(id);
    }

    @Test
    @DisplayName("S-SC-2: a schedule of a task this instance lacks is left to instances that have it")
    void unknownTaskIsNotFiredHere() {
        String id = unique("foreign");
        schedules.upsert(report(id).build());
        runlane.jdbc().update("UPDATE " + runlane.schema() + ".schedules SET task_id = 'elsewhere' WHERE id = ?", id);
        moveNextFireBack(id, Duration.ofSeconds(1));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE idempotency_key LIKE ?",
                                Long.class,
                                "schedule." + id + ".%"))
                .isZero();
        assertThat(scheduleRows()).isPositive();
    }
}

package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import io.runlane.ScheduleDefinition;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-OP-14: {@code RunQuery.sources} and {@code RunQuery.scheduleId} select runs by how they came to be, against real
 * PostgreSQL: triggered, fired by a schedule or triggered now from it, rerun, retried and forked.
 */
@RunlaneDatabaseTest
class RunSourceFilterIntegrationTests {

    /** Fails every attempt, so that its runs can be retried as well as rerun and forked. */
    @Task(id = "sources.report", maxAttempts = 1)
    public static class Report implements TaskHandler<Report.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            throw new IllegalStateException("report failed");
        }
    }

    @Pool(size = 10)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("run_sources") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                new ScheduleSettings(Duration.ofSeconds(1), Duration.ofHours(4)),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Report());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private RunOperations runs() {
        return runlane.template().runs();
    }

    /** A schedule of {@code sources.report} whose next occurrence is already due. */
    private void dueSchedule(String id) {
        runlane.template()
                .schedules()
                .upsert(ScheduleDefinition.builder(id, "sources.report")
                        .every(Duration.ofMinutes(1))
                        .payload(Map.of("name", id))
                        .build());
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".schedules SET next_fire_at = now() - interval '2 seconds'"
                                + " WHERE id = ?",
                        id);
    }

    private UUID fire(String scheduleId) {
        dueSchedule(scheduleId);
        runlane.engine().schedules().firer().fireDue();
        return runlane.template().schedules().get(scheduleId).orElseThrow().lastRunId();
    }

    private Set<UUID> listed(RunQuery.Builder query) {
        List<UUID> ids = new ArrayList<>();
        String cursor = null;
        do {
            var page = runs().list(query.cursor(cursor).limit(2).build());
            page.items().forEach(run -> ids.add(run.id()));
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(ids).as("no run listed twice").doesNotHaveDuplicates();
        return new HashSet<>(ids);
    }

    private long rows(String table) {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + "." + table, Long.class);
    }

    /** The runs of each source: two triggered, two of schedule a (fired, now), one of b, a rerun, a retry, a fork. */
    private record Sources(
            UUID triggered, UUID other, UUID firedA, UUID nowA, UUID firedB, UUID rerun, UUID retry, UUID fork) {}

    private Sources createOneOfEach() {
        UUID triggered = runlane.template()
                .trigger("sources.report", new Report.Payload("first"))
                .runId();
        UUID other = runlane.template()
                .trigger("sources.report", new Report.Payload("second"))
                .runId();
        UUID firedA = fire("nightly.a");
        TriggerResult nowA = runlane.template().schedules().triggerNow("nightly.a");
        UUID firedB = fire("nightly.b");
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(triggered).status() == RunStatus.FAILED);
        UUID rerun = runs().rerun(triggered).id();
        UUID retry = runs().retry(triggered).id();
        UUID fork = runs().fork(triggered, null).id();
        assertThat(nowA.created()).isTrue();
        assertThat(nowA.run().scheduleId())
                .as("trigger-now answers the run with its schedule")
                .isEqualTo("nightly.a");
        return new Sources(triggered, other, firedA, nowA.runId(), firedB, rerun, retry, fork);
    }

    @Test
    @DisplayName("S-OP-14: each source lists exactly its runs, and Run.source() and scheduleId say the same")
    void eachSourceListsExactlyItsRuns() {
        Sources s = createOneOfEach();

        assertThat(listed(RunQuery.builder().sources(RunSource.TRIGGER)))
                .containsExactlyInAnyOrder(s.triggered(), s.other());
        assertThat(listed(RunQuery.builder().sources(RunSource.SCHEDULE)))
                .containsExactlyInAnyOrder(s.firedA(), s.nowA(), s.firedB());
        assertThat(listed(RunQuery.builder().sources(RunSource.RERUN))).containsExactly(s.rerun());
        assertThat(listed(RunQuery.builder().sources(RunSource.RETRY))).containsExactly(s.retry());
        assertThat(listed(RunQuery.builder().sources(RunSource.FORK))).containsExactly(s.fork());
        assertThat(listed(RunQuery.builder().sources(RunSource.RERUN, RunSource.RETRY, RunSource.FORK)))
                .as("several sources: any of them")
                .containsExactlyInAnyOrder(s.rerun(), s.retry(), s.fork());
        assertThat(listed(RunQuery.builder())).as("no source filter: every run").hasSize(8);

        assertThat(runlane.run(s.triggered()).source()).isEqualTo(RunSource.TRIGGER);
        assertThat(runlane.run(s.firedA()).source()).isEqualTo(RunSource.SCHEDULE);
        assertThat(runlane.run(s.firedA()).scheduleId()).isEqualTo("nightly.a");
        assertThat(runlane.run(s.firedB()).scheduleId()).isEqualTo("nightly.b");
        assertThat(runlane.run(s.rerun()).source()).isEqualTo(RunSource.RERUN);
        assertThat(runlane.run(s.rerun()).scheduleId()).isNull();
        assertThat(runlane.run(s.retry()).source()).isEqualTo(RunSource.RETRY);
        assertThat(runlane.run(s.fork()).source()).isEqualTo(RunSource.FORK);
    }

    @Test
    @DisplayName(
            "S-OP-14: a schedule id lists the runs it fired and triggered now, and combines with the other filters")
    void scheduleIdListsTheRunsOfOneSchedule() {
        Sources s = createOneOfEach();

        assertThat(listed(RunQuery.builder().scheduleId("nightly.a"))).containsExactlyInAnyOrder(s.firedA(), s.nowA());
        assertThat(listed(RunQuery.builder().scheduleId("nightly.b"))).containsExactly(s.firedB());
        assertThat(listed(RunQuery.builder().scheduleId("nightly")))
                .as("an exact id, not a prefix")
                .isEmpty();
        assertThat(listed(RunQuery.builder().scheduleId("nightly.a").sources(RunSource.TRIGGER)))
                .as("a schedule's runs are never triggered ones")
                .isEmpty();
        String occurrenceKey = runlane.run(s.firedA()).idempotencyKey();
        assertThat(listed(RunQuery.builder().scheduleId("nightly.a").idempotencyKey(occurrenceKey)))
                .containsExactly(s.firedA());
    }

    @Test
    @DisplayName("S-OP-14: an invalid schedule id or a null source fails naming the field, and writes nothing")
    void badFiltersFailNamingTheField() {
        runlane.template().trigger("sources.report", new Report.Payload("first"));
        long runs = rows("runs");
        long events = rows("run_events");

        for (String bad : List.of("", " padded", "a:b")) {
            assertThatThrownBy(
                            () -> runs().list(RunQuery.builder().scheduleId(bad).build()))
                    .isInstanceOfSatisfying(
                            InvalidKeyException.class,
                            ex -> assertThat(ex.field()).isEqualTo("scheduleId"));
            assertThatThrownBy(() ->
                            runs().cancelAll(RunQuery.builder().scheduleId(bad).build(), 10))
                    .isInstanceOfSatisfying(
                            InvalidKeyException.class,
                            ex -> assertThat(ex.field()).isEqualTo("scheduleId"));
        }
        assertThatThrownBy(
                        () -> RunQuery.builder().sources(RunSource.RERUN, null).build())
                .isInstanceOf(ConfigurationInvalidException.class)
                .hasMessageContaining("sources");
        assertThatThrownBy(() -> RunQuery.builder()
                        .sources(new HashSet<>(Arrays.asList(RunSource.FORK, null)))
                        .build())
                .isInstanceOf(ConfigurationInvalidException.class)
                .hasMessageContaining("sources");

        assertThat(rows("runs")).isEqualTo(runs);
        assertThat(rows("run_events")).isEqualTo(events);
    }

    @Test
    @DisplayName("S-OP-14: a bulk cancel by schedule id cancels that schedule's runs and no other")
    void bulkCancelBySchedule() {
        UUID triggered = runlane.template()
                .trigger("sources.report", new Report.Payload("first"))
                .runId();
        UUID fired = fire("hourly");
        Run now = runlane.template().schedules().triggerNow("hourly").run();

        var result = runs().cancelAll(RunQuery.builder().scheduleId("hourly").build(), 10);

        assertThat(result.acted()).isEqualTo(2);
        assertThat(runlane.run(fired).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(now.id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(triggered).status()).isEqualTo(RunStatus.QUEUED);
    }
}

package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.Run;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleOperations;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Catch-up after an outage (S-SC-4, S-SC-7): the schedule's stored next fire time is moved hours into the past, as
 * if no instance had run, and the firer is called directly. The catch-up window is 4 hours.
 */
@RunlaneDatabaseTest
class ScheduleCatchUpIntegrationTests {

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static ScheduleOperations schedules;

    @BeforeAll
    static void start(@FreshSchema("schedule_catch_up") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                new ScheduleSettings(Duration.ofSeconds(1), Duration.ofHours(4)),
                ExecutionSettings.defaults(),
                EngineListener.NONE,
                new ScheduleTasks.Report());
        schedules = runlane.template().schedules();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    /**
     * An hourly cron whose minute is half an hour from now, so that no occurrence falls due while a test runs: an
     * occurrence due during the test would be fired as on time, not as missed.
     */
    private static String hourlyAwayFromNow() {
        int minute = (java.time.LocalTime.now(java.time.ZoneOffset.UTC).getMinute() + 30) % 60;
        return minute + " * * * *";
    }

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

    @Test
    @DisplayName("S-SC-4: after an outage LATEST fires one run for the newest missed occurrence")
    void catchUpLatest() {
        String id = unique("latest");
        schedules.upsert(ScheduleDefinition.builder(id, "schedules.report")
                .cron(hourlyAwayFromNow())
                .payload(Map.of("name", "hourly", "copies", 1))
                .overlap(OverlapPolicy.ALLOW)
                .build());
        Instant before = nextFireAt(id);
        moveNextFireBack(id, Duration.ofHours(3).plusMinutes(1));

        runlane.engine().schedules().firer().fireDue();

        List<Run> runs = runsOf(id);
        assertThat(runs).hasSize(1);
        Instant newestMissed = before.minus(Duration.ofHours(1));
        assertThat(runs.get(0).idempotencyKey()).isEqualTo("schedule." + id + "." + newestMissed.toEpochMilli());
        assertThat(nextFireAt(id)).isEqualTo(before);
    }

    @Test
    @DisplayName("S-SC-4: after an outage NONE fires nothing and continues with the next occurrence")
    void catchUpNone() {
        String id = unique("none");
        schedules.upsert(ScheduleDefinition.builder(id, "schedules.report")
                .cron(hourlyAwayFromNow())
                .payload(Map.of("name", "hourly", "copies", 1))
                .catchUp(CatchUpPolicy.NONE)
                .build());
        Instant before = nextFireAt(id);
        moveNextFireBack(id, Duration.ofHours(3).plusMinutes(1));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id)).isEmpty();
        assertThat(nextFireAt(id)).isEqualTo(before);
    }

    @Test
    @DisplayName("S-SC-4: after an outage ALL fires each missed occurrence within the window, oldest first")
    void catchUpAll() {
        String id = unique("all");
        schedules.upsert(ScheduleDefinition.builder(id, "schedules.report")
                .cron("0 " + hourlyAwayFromNow())
                .payload(Map.of("name", "hourly", "copies", 1))
                .overlap(OverlapPolicy.ALLOW)
                .catchUp(CatchUpPolicy.ALL)
                .build());
        Instant before = nextFireAt(id);
        moveNextFireBack(id, Duration.ofHours(6));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id))
                .extracting(Run::idempotencyKey)
                .as("the window is 4 hours: the occurrences of the last 4 hours, oldest first")
                .containsExactly(
                        key(id, before.minus(4, ChronoUnit.HOURS)),
                        key(id, before.minus(3, ChronoUnit.HOURS)),
                        key(id, before.minus(2, ChronoUnit.HOURS)),
                        key(id, before.minus(1, ChronoUnit.HOURS)));
        assertThat(nextFireAt(id)).isEqualTo(before);
    }

    private static String key(String id, Instant occurrence) {
        return "schedule." + id + "." + occurrence.toEpochMilli();
    }
}

package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInvalidException;
import io.runlane.ScheduleOperations;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-SC-5: every bad run-time schedule fails with a typed error naming the schedule and the field; nothing is written. */
@RunlaneDatabaseTest
class ScheduleValidationIntegrationTests {

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static ScheduleOperations schedules;

    @BeforeAll
    static void start(@FreshSchema("schedule_input") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                ScheduleSettings.defaults(),
                ExecutionSettings.defaults(),
                EngineListener.NONE,
                new ScheduleTasks.Report());
        schedules = runlane.template().schedules();
    }

    private static ScheduleDefinition.Builder report(String id) {
        return ScheduleDefinition.builder(id, "schedules.report").payload(Map.of("name", "daily", "copies", 1));
    }

    private static long scheduleRows() {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".schedules", Long.class);
    }

    private static void assertRefused(ThrowingCallable call, String scheduleId, String field, String reasonPart) {
        long before = scheduleRows();
        TestRunlane.RowCounts rows = runlane.rowCounts();
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(ScheduleInvalidException.class, ex -> {
                    assertThat(ex.code()).isEqualTo("schedule_invalid");
                    assertThat(ex.scheduleId()).isEqualTo(scheduleId);
                    assertThat(ex.field()).isEqualTo(field);
                })
                .hasMessageContaining("Schedule '" + scheduleId + "'")
                .hasMessageContaining(reasonPart);
        assertThat(scheduleRows()).isEqualTo(before);
        assertThat(runlane.rowCounts()).isEqualTo(rows);
    }

    @Test
    @DisplayName("S-SC-5: an invalid cron expression is refused naming the schedule and the field")
    void invalidCron() {
        assertRefused(
                () -> schedules.upsert(report("bad-cron").cron("61 * * * *").build()),
                "bad-cron",
                "cron",
                "61 * * * *");
        assertRefused(
                () -> schedules.upsert(report("never").cron("0 0 0 30 2 *").build()), "never", "cron", "never matches");
    }

    @Test
    @DisplayName("S-SC-5: an interval shorter than a second, or with sub-millisecond parts, is refused")
    void invalidInterval() {
        assertRefused(
                () -> schedules.upsert(
                        report("fast").every(Duration.ofMillis(500)).build()),
                "fast",
                "every",
                "at least 1s");
        assertRefused(
                () -> schedules.upsert(report("zero").every(Duration.ZERO).build()), "zero", "every", "at least 1s");
        assertRefused(
                () -> schedules.upsert(report("nanos")
                        .every(Duration.ofSeconds(1).plusNanos(1))
                        .build()),
                "nanos",
                "every",
                "whole milliseconds");
    }

    @Test
    @DisplayName("S-ID-10: an interval longer than 1,000 years is refused")
    void intervalOver1000Years() {
        assertRefused(
                () -> schedules.upsert(report("millennial")
                        .every(Duration.ofDays(365_250).plusSeconds(1))
                        .build()),
                "millennial",
                "every",
                "at most 365250 days");
    }

    @Test
    @DisplayName("S-SC-5: both or neither of cron and every are refused")
    void cronXorEvery() {
        assertRefused(
                () -> schedules.upsert(
                        report("both").cron("@daily").every(Duration.ofHours(1)).build()),
                "both",
                "cron/every",
                "both set");
        assertRefused(() -> schedules.upsert(report("neither").build()), "neither", "cron/every", "both empty");
    }

    @Test
    @DisplayName("S-SC-5: an unknown task is refused")
    void unknownTask() {
        assertRefused(
                () -> schedules.upsert(ScheduleDefinition.builder("orphan", "no.such.task")
                        .every(Duration.ofMinutes(1))
                        .build()),
                "orphan",
                "task",
                "no.such.task");
    }

    @Test
    @DisplayName("S-SC-5, S-ID-4: a payload that violates its constraints or does not convert is refused")
    void invalidPayload() {
        assertRefused(
                () -> schedules.upsert(ScheduleDefinition.builder("blank", "schedules.report")
                        .every(Duration.ofMinutes(1))
                        .payload(Map.of("name", " ", "copies", -1))
                        .build()),
                "blank",
                "payload",
                "copies");
        assertRefused(
                () -> schedules.upsert(ScheduleDefinition.builder("shape", "schedules.report")
                        .every(Duration.ofMinutes(1))
                        .payload("just text")
                        .build()),
                "shape",
                "payload",
                "does not convert");
    }

    @Test
    @DisplayName("S-SC-5, S-ID-1: an invalid or too long schedule id is refused")
    void invalidId() {
        assertRefused(
                () -> schedules.upsert(
                        report("a:b").every(Duration.ofMinutes(1)).build()),
                "a:b",
                "id",
                "':'");
        String tooLong = "x".repeat(201);
        assertRefused(
                () -> schedules.upsert(
                        report(tooLong).every(Duration.ofMinutes(1)).build()),
                tooLong,
                "id",
                "at most 200");
    }

    @Test
    @DisplayName("S-SC-5: a valid schedule with the default zone is written")
    void validScheduleIsWritten() {
        assertThat(schedules.upsert(report("fine").cron("0 0 6 * * *").build()).zone())
                .isEqualTo(ZoneOffset.UTC);
    }
}

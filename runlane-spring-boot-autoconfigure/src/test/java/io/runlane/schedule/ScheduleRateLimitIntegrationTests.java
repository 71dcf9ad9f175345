package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.RateLimitExceededException;
import io.runlane.RunContext;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleOperations;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerResult;
import io.runlane.autoconfigure.actuate.RunlaneMetrics;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Schedules of a rate-limited task (S-SC-10, S-SC-11, S-RT-3) against real PostgreSQL: a fire the rate limit refuses
 * is skipped and the schedule moves on, while an operator's {@code triggerNow} fails to its caller. Firing is driven
 * by calling the firer directly after moving the schedule's stored next fire time into the past.
 */
@RunlaneDatabaseTest
@ExtendWith(OutputCaptureExtension.class)
class ScheduleRateLimitIntegrationTests {

    /** One statement per account per hour. */
    @Task(id = "schedules.statement", rateLimit = 1, rateLimitPeriod = "1h")
    static class SendStatement implements TaskHandler<SendStatement.Payload> {

        record Payload(String account) {}

        @Override
        public String rateLimitKey(Payload payload) {
            return "account." + payload.account();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 10)
    private static HikariDataSource dataSource;

    private static final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private static TestRunlane runlane;

    private static ScheduleOperations schedules;

    @BeforeAll
    static void start(@FreshSchema("schedule_rate_limits") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                new ScheduleSettings(Duration.ofSeconds(1), Duration.ofHours(4)),
                ExecutionSettings.defaults(),
                new RunlaneMetrics(meters, List.of("default"), Map::of, Duration.ofMinutes(1)),
                new SendStatement());
        schedules = runlane.template().schedules();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static ScheduleDefinition.Builder statement(String id, String account) {
        return ScheduleDefinition.builder(id, "schedules.statement")
                .every(Duration.ofMinutes(1))
                .payload(new SendStatement.Payload(account));
    }

    private static TriggerResult send(String account) {
        return runlane.template().trigger(SendStatement.class, new SendStatement.Payload(account));
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

    private static long runsOf(String scheduleId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE idempotency_key LIKE ?",
                        Long.class,
                        "schedule." + scheduleId + ".%");
    }

    private static long creations(String account) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema()
                                + ".rate_limit_creations WHERE task_id = 'schedules.statement' AND rate_limit_key = ?",
                        Long.class,
                        "account." + account);
    }

    private static double skipsMetered(String scheduleId, String reason) {
        var counter = meters.find("runlane.schedule.skips")
                .tags("schedule", scheduleId, "task", "schedules.statement", "reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private static ScheduleInfo info(String id) {
        return schedules.get(id).orElseThrow();
    }

    @Test
    @DisplayName("S-SC-10, S-RT-3: a fire the rate limit refuses is skipped: no run, the schedule moves on, metered and"
            + " logged once with retryAfter")
    void aFireAtTheLimitIsSkipped(CapturedOutput output) {
        String account = unique("a");
        String id = unique("statement");
        TriggerResult earlier = send(account);
        schedules.upsert(statement(id, account).build());
        moveNextFireBack(id, Duration.ofSeconds(2));
        Instant due = info(id).nextFireAt();
        TestRunlane.RowCounts before = runlane.rowCounts();

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id)).isZero();
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(creations(account)).isOne();
        ScheduleInfo after = info(id);
        assertThat(after.nextFireAt()).isEqualTo(due.plus(Duration.ofMinutes(1)));
        assertThat(after.lastFireAt()).isEqualTo(due);
        assertThat(after.lastRunId()).isNull();
        assertThat(after.skippedCount()).isEqualTo(1);
        assertThat(skipsMetered(id, "rate_limited")).isEqualTo(1);
        assertThat(skipsMetered(id, "overlap")).isZero();
        Instant retryAfter = earlier.run().createdAt().plus(Duration.ofHours(1));
        assertThat(output.getAll().lines().filter(line -> line.contains("Runlane schedule '" + id + "'")))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("INFO", "skipped 1 occurrence:", "account." + account, retryAfter.toString())
                        .doesNotContain("dropped"));

        runlane.engine().schedules().firer().fireDue();
        assertThat(info(id).skippedCount())
                .as("the skipped occurrence is not fired again")
                .isEqualTo(1);
    }

    @Test
    @DisplayName("S-SC-10: occurrences caught up in one pass are each admitted or skipped; the admitted run commits")
    void caughtUpOccurrencesOverTheLimitAreSkippedAndTheAdmittedOneCommits(CapturedOutput output) {
        String account = unique("a");
        String id = unique("statement");
        schedules.upsert(statement(id, account)
                .overlap(OverlapPolicy.ALLOW)
                .catchUp(CatchUpPolicy.ALL)
                .build());
        moveNextFireBack(id, Duration.ofSeconds(210));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id)).isOne();
        assertThat(creations(account)).isOne();
        ScheduleInfo after = info(id);
        assertThat(after.lastRunId()).isNotNull();
        assertThat(after.skippedCount()).isEqualTo(3);
        assertThat(after.nextFireAt()).isAfter(Instant.now().minusSeconds(5));
        assertThat(skipsMetered(id, "rate_limited")).isEqualTo(3);
        assertThat(output.getAll().lines().filter(line -> line.contains("Runlane schedule '" + id + "'")))
                .singleElement()
                .satisfies(line -> assertThat(line).contains("skipped 3 occurrences:"));
    }

    @Test
    @DisplayName("S-RT-3: a scheduled fire counts like a trigger: the next trigger of its key is refused")
    void aFireCounts() {
        String account = unique("a");
        String id = unique("statement");
        schedules.upsert(statement(id, account).build());
        moveNextFireBack(id, Duration.ofSeconds(2));

        runlane.engine().schedules().firer().fireDue();

        assertThat(runsOf(id)).isOne();
        assertThat(creations(account)).isOne();
        assertThat(info(id).skippedCount()).isZero();
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> send(account));
    }

    @Test
    @DisplayName(
            "S-SC-11, S-RT-2: triggerNow at the limit fails to its caller, writes nothing, leaves the schedule alone")
    void triggerNowAtTheLimitFails() {
        String account = unique("a");
        String id = unique("statement");
        TriggerResult earlier = send(account);
        schedules.upsert(statement(id, account).build());
        ScheduleInfo before = info(id);
        TestRunlane.RowCounts rows = runlane.rowCounts();

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> schedules.triggerNow(id))
                .satisfies(ex -> {
                    assertThat(ex.taskId()).isEqualTo("schedules.statement");
                    assertThat(ex.rateLimitKey()).isEqualTo("account." + account);
                    assertThat(ex.retryAfter())
                            .isEqualTo(earlier.run().createdAt().plus(Duration.ofHours(1)));
                });

        assertThat(runlane.rowCounts()).isEqualTo(rows);
        assertThat(info(id)).isEqualTo(before);
        assertThat(skipsMetered(id, "rate_limited")).isZero();
    }
}

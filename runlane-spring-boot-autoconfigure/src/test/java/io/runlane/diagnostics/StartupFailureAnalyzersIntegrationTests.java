package io.runlane.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Schedule;
import io.runlane.ScheduleDefinition;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Every Runlane start-up failure goes through a failure analyzer (issue 31, item 2): declared schedules, ids and keys
 * in properties, and declared schedules changed by start-up code each end in a one-screen "APPLICATION FAILED TO
 * START" report with a description and an action, and print no stack trace. The rest of Runlane's start-up failures
 * are covered by {@link StartupFailureReportIntegrationTests} and {@link PayloadTypeStartupIntegrationTests}.
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class StartupFailureAnalyzersIntegrationTests {

    /** What fits on one screen; the report of a malformed cron was 139 lines with 56 frames before. */
    private static final int ONE_SCREEN = 25;

    @FreshSchema("startup_reports")
    private String schema;

    @Test
    @DisplayName("S-SC-5: a malformed cron in @Schedule is a one-screen report naming the class and a valid form")
    void malformedCronInAnAnnotationIsReportedOnOneScreen(CapturedOutput output) {
        String report = failureReport(output, MalformedCronApplication.class);

        assertThat(report)
                .contains("Runlane schedule 'reports.nightly' is invalid: cron is not a valid cron expression:"
                        + " '0 2 * *'")
                .contains("Declared by: @Schedule(id = \"reports.nightly\") on " + MalformedCron.class.getName())
                .contains("Action:")
                .contains("Fix the @Schedule(id = \"reports.nightly\") annotation on " + MalformedCron.class.getName()
                        + ": use five fields (minute hour day-of-month month day-of-week, such as '0 2 * * *'")
                .contains("see docs/guarantees.md#s-sc-5");
        assertThat(report.lines()).hasSizeLessThanOrEqualTo(ONE_SCREEN);
    }

    @Test
    @DisplayName("S-SC-5: a bad cron set in a property is reported with the property and where it was set")
    void malformedCronInAPropertyIsReportedWithItsOrigin(CapturedOutput output) {
        String report = failureReport(
                output,
                PlainTaskApplication.class,
                "--runlane.schedules.cleanup.task=plain.work",
                "--runlane.schedules.cleanup.cron=every day");

        assertThat(report)
                .contains("Runlane schedule 'cleanup' is invalid: cron is not a valid cron expression: 'every day'")
                .contains("Property: runlane.schedules.cleanup.cron")
                .contains("Origin:   \"runlane.schedules.cleanup.cron\" from property source \"commandLineArgs\"")
                .contains("Update the property 'runlane.schedules.cleanup.cron' in your application's"
                        + " configuration: use five fields");
        assertThat(report.lines()).hasSizeLessThanOrEqualTo(ONE_SCREEN);
    }

    @Test
    @DisplayName("S-SC-5: a property overriding an annotated schedule's zone is reported as the property")
    void badZoneOverrideIsReportedAsTheProperty(CapturedOutput output) {
        String report = failureReport(output, HourlyApplication.class, "--runlane.schedules.hourly.zone=Mars/Olympus");

        assertThat(report)
                .contains("Runlane schedule 'hourly' is invalid: zone is not a time zone id: 'Mars/Olympus'")
                .contains("Property: runlane.schedules.hourly.zone")
                .contains("use a time zone id such as UTC or Europe/Berlin.");
    }

    @Test
    @DisplayName("S-SC-5: a configured schedule naming no task of the application is reported with the fix")
    void unknownTaskIsReported(CapturedOutput output) {
        String report = failureReport(
                output,
                PlainTaskApplication.class,
                "--runlane.schedules.orphan.task=no.such.task",
                "--runlane.schedules.orphan.every=1m");

        assertThat(report)
                .contains("Runlane schedule 'orphan' is invalid: task names no registered task: 'no.such.task'")
                .contains("Property: runlane.schedules.orphan.task")
                .contains("name the id of a @Task of this application.");
    }

    @Test
    @DisplayName("S-SC-5: a bad interval in @Schedule is reported naming the class")
    void badIntervalIsReported(CapturedOutput output) {
        String report = failureReport(output, BadIntervalApplication.class);

        assertThat(report)
                .contains("Runlane schedule 'ticks' is invalid: every must be at least 1s in whole milliseconds")
                .contains("Declared by: @Schedule(id = \"ticks\") on " + BadInterval.class.getName())
                .contains("use a duration of at least 1s in whole milliseconds, such as 30s, 15m or 1h.");
    }

    @Test
    @DisplayName("S-SC-5: one schedule id declared by two classes is reported naming both")
    void duplicateScheduleIdIsReported(CapturedOutput output) {
        String report = failureReport(output, DuplicateScheduleApplication.class);

        assertThat(report)
                .contains("Runlane schedule 'hourly' is invalid: id is declared twice: by @Schedule on ")
                .contains(Hourly.class.getName())
                .contains(AlsoHourly.class.getName())
                .contains("Correct the schedule's declaration: give each schedule its own id.");
    }

    @Test
    @DisplayName("S-ID-1: an invalid runlane.environment is reported with where it was set")
    void invalidEnvironmentIsReported(CapturedOutput output) {
        String report = failureReport(output, PlainTaskApplication.class, "--runlane.environment=eu:west");

        assertThat(report)
                .contains("Invalid Runlane configuration property 'runlane.environment': it must not contain ':'")
                .contains("Origin: \"runlane.environment\" from property source \"commandLineArgs\"")
                .contains("Update the property 'runlane.environment' in your application's configuration: ids,"
                        + " queue names and keys are 1 to 255 characters without ':'")
                .contains("see docs/guarantees.md#s-id-1");
    }

    @Test
    @DisplayName("S-ID-1: a queue with an invalid name is reported naming the queue")
    void invalidQueueNameIsReported(CapturedOutput output) {
        String report =
                failureReport(output, PlainTaskApplication.class, "--runlane.queues[eu:west].concurrency-limit=2");

        assertThat(report)
                .contains("Runlane queue 'eu:west', declared under runlane.queues, has an invalid name: it must not"
                        + " contain ':'")
                .contains("Rename the queue under runlane.queues");
    }

    @Test
    @DisplayName("S-SC-8: start-up code that upserts a declared schedule is reported with the declaration to change")
    void upsertOfADeclaredScheduleAtStartUpIsReported(CapturedOutput output) {
        String report = failureReport(output, UpsertDeclaredApplication.class);

        assertThat(report)
                .contains("Schedule 'hourly' is declared by the application; change its declaration instead, but the"
                        + " application's start-up code changed it at run time")
                .contains("Change the schedule's @Schedule annotation or its runlane.schedules.<id>.* properties"
                        + " instead")
                .contains("see docs/guarantees.md#s-sc-8");
    }

    /** Starts the application, expects it to fail, and returns Boot's report; no stack trace may be printed. */
    private String failureReport(CapturedOutput output, Class<?> application, String... arguments) {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("--spring.datasource.url", TestDatabase.jdbcUrl());
        args.put("--spring.datasource.hikari.maximum-pool-size", "2");
        args.put("--runlane.schema.name", schema);
        args.put("--runlane.worker.enabled", "false");
        for (String argument : arguments) {
            int equals = argument.indexOf('=');
            args.put(argument.substring(0, equals), argument.substring(equals + 1));
        }
        int before = output.getAll().length();
        assertThatThrownBy(() -> new SpringApplicationBuilder(application)
                        .web(WebApplicationType.NONE)
                        .bannerMode(Banner.Mode.OFF)
                        .logStartupInfo(false)
                        .run(args.entrySet().stream()
                                .map(arg -> arg.getKey() + "=" + arg.getValue())
                                .toArray(String[]::new))
                        .close())
                .isNotNull();
        String printed = output.getAll().substring(before);
        int start = printed.lastIndexOf("APPLICATION FAILED TO START");
        assertThat(start).as("the failure report in:%n%s", printed).isNotNegative();
        assertThat(printed).as("no stack trace is printed").doesNotContain("\tat ");
        return printed.substring(start);
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    static class PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(PlainWork.class)
    static class PlainTaskApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(MalformedCron.class)
    static class MalformedCronApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(Hourly.class)
    static class HourlyApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(BadInterval.class)
    static class BadIntervalApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import({Hourly.class, AlsoHourly.class})
    static class DuplicateScheduleApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(Hourly.class)
    static class UpsertDeclaredApplication extends PlainApplication {

        @Bean
        ApplicationRunner changeDeclaredSchedule(RunlaneTemplate runlane) {
            return args -> runlane.schedules()
                    .upsert(ScheduleDefinition.builder("hourly", "hourly.work")
                            .every(Duration.ofMinutes(5))
                            .build());
        }
    }

    record Nothing() {}

    @Task(id = "plain.work")
    static class PlainWork implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports.nightly")
    @Schedule(id = "reports.nightly", cron = "0 2 * *")
    static class MalformedCron implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "hourly.work")
    @Schedule(id = "hourly", cron = "@hourly")
    static class Hourly implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "hourly.again")
    @Schedule(id = "hourly", every = "1h")
    static class AlsoHourly implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "ticks.work")
    @Schedule(id = "ticks", every = "500ms")
    static class BadInterval implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }
}

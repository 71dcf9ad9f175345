package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.CatchUpPolicy;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Schedule;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleInvalidException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.schedule.ScheduleFirer;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/** Declared schedules through the auto-configuration (S-SC-1, S-SC-5): annotations, configuration, start-up. */
@RunlaneDatabaseTest
class ScheduleAutoConfigurationIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("schedule_boot")
    private String schema;

    @Task(id = "boot.cleanup")
    @Schedule(id = "cleanup.hourly", cron = "@hourly")
    @Schedule(id = "cleanup.often", every = "1s")
    static class Cleanup implements TaskHandler<Cleanup.Payload> {

        record Payload(String scope) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Task(id = "boot.broken")
    @Schedule(id = "broken.zone", every = "1m", zone = "Nowhere/Else")
    static class Broken implements TaskHandler<Cleanup.Payload> {

        @Override
        public void run(Cleanup.Payload payload, RunContext context) {}
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    abstract static class RunlaneApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(Cleanup.class)
    static class CleanupApplication extends RunlaneApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(Broken.class)
    static class BrokenApplication extends RunlaneApplication {}

    @Test
    @DisplayName("S-SC-1: annotations and runlane.schedules.<id>.* are written at start-up; configuration wins")
    void declaredSchedulesAreWrittenAtStartUp() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("runlane.schedules[cleanup.hourly].cron", "0 30 6 * * *");
        properties.put("runlane.schedules[cleanup.hourly].zone", "Europe/Paris");
        properties.put("runlane.schedules.catch-up-window", "3h");
        properties.put("runlane.schedules.poll-interval", "2s");
        properties.put("runlane.schedules.nightly.task", "boot.cleanup");
        properties.put("runlane.schedules.nightly.cron", "0 0 2 * * *");
        properties.put("runlane.schedules.nightly.payload", "{\"scope\":\"all\"}");
        properties.put("runlane.schedules.nightly.catch-up", "none");
        try (ConfigurableApplicationContext context = start(CleanupApplication.class, properties)) {
            RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);

            assertThat(runlane.schedules().list())
                    .extracting(ScheduleInfo::id)
                    .containsExactlyInAnyOrder("cleanup.hourly", "cleanup.often", "nightly");
            ScheduleInfo hourly = runlane.schedules().get("cleanup.hourly").orElseThrow();
            assertThat(hourly.expression())
                    .as("an id with dots is configured in brackets")
                    .isEqualTo("0 30 6 * * *");
            assertThat(hourly.zone()).isEqualTo(ZoneId.of("Europe/Paris"));
            ScheduleInfo nightly = runlane.schedules().get("nightly").orElseThrow();
            assertThat(nightly.catchUp()).isEqualTo(CatchUpPolicy.NONE);
            assertThat(nightly.declared()).isTrue();
            assertThat(context.getBean(ScheduleSettings.class))
                    .isEqualTo(new ScheduleSettings(Duration.ofSeconds(2), Duration.ofHours(3)));
            assertThat(context.getBean(ScheduleFirer.class).isRunning()).isTrue();

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> new JdbcTemplate(admin)
                                    .queryForObject(
                                            "SELECT count(*) FROM " + schema
                                                    + ".runs WHERE idempotency_key LIKE 'schedule.cleanup.often.%'",
                                            Long.class)
                            > 0);
        }
    }

    @Test
    @DisplayName("S-SC-1: enabled=false withdraws a declared schedule")
    void disabledScheduleIsNotWritten() {
        try (ConfigurableApplicationContext context =
                start(CleanupApplication.class, Map.of("runlane.schedules[cleanup.often].enabled", "false"))) {
            assertThat(context.getBean(RunlaneTemplate.class).schedules().list())
                    .extracting(ScheduleInfo::id)
                    .containsExactly("cleanup.hourly");
        }
    }

    @Test
    @DisplayName("S-SC-5: an invalid declared schedule fails start-up naming the schedule, the field and the class")
    void invalidDeclarationFailsStartUp() {
        assertThatException()
                .isThrownBy(() -> start(BrokenApplication.class, Map.of()).close())
                .withMessageContaining("broken.zone")
                .withMessageContaining("zone")
                .withMessageContaining(Broken.class.getName())
                .satisfies(ex -> assertThat(causes(ex)).hasAtLeastOneElementOfType(ScheduleInvalidException.class));
    }

    @Test
    @DisplayName("S-SC-1: configuration under an id that binds nothing fails start-up instead of being ignored")
    void dottedIdWithoutBracketsFailsStartUp() {
        assertThatException()
                .isThrownBy(() -> start(
                                CleanupApplication.class, Map.of("runlane.schedules.cleanup.often.enabled", "false"))
                        .close())
                .withMessageContaining("runlane.schedules.cleanup")
                .withMessageContaining("brackets");
    }

    private static java.util.List<Throwable> causes(Throwable ex) {
        java.util.List<Throwable> chain = new java.util.ArrayList<>();
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            chain.add(cause);
        }
        return chain;
    }

    private ConfigurableApplicationContext start(Class<?> application, Map<String, Object> extraProperties) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", TestDatabase.jdbcUrl());
        properties.put("spring.datasource.hikari.maximum-pool-size", "3");
        properties.put("runlane.schema.name", schema);
        properties.put("runlane.worker.enabled", "false");
        properties.putAll(extraProperties);
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties)
                .run();
    }
}

package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.schedule.ScheduleFirer;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The worker follows the context's lifecycle after its first start on {@code ApplicationReadyEvent} (S-EX-28, issue
 * 25 item 8): Spring's test context cache pauses cached contexts and restarts them, and checkpoint/restore stops and
 * starts them; runs triggered afterwards must still be executed.
 */
@RunlaneDatabaseTest
class WorkerFollowsContextLifecycleIntegrationTests {

    /** The runs whose handler ran. */
    static final Set<UUID> EXECUTED = ConcurrentHashMap.newKeySet();

    /** The run an application runner triggered, before the application was ready. */
    static volatile UUID triggeredByRunner;

    /** Whether that run was still queued, not claimed, when the runner checked on it. */
    static volatile Boolean queuedDuringRunners;

    @FreshSchema("ctx_lifecycle")
    private String schema;

    @BeforeEach
    void forgetWhatWasSeen() {
        EXECUTED.clear();
        triggeredByRunner = null;
        queuedDuringRunners = null;
    }

    @Test
    @DisplayName("S-EX-28: after context.pause() and context.restart() the worker, maintenance and the schedule firer"
            + " run again: a run triggered while paused and one triggered after the restart are executed")
    void workerRunsAgainAfterPauseAndRestart() {
        try (ConfigurableApplicationContext context = start()) {
            RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);
            assertExecuted(runlane, trigger(runlane, "before"));

            context.pause();
            assertThat(context.getBean(RunWorker.class).isRunning()).isFalse();
            assertThat(context.getBean(MaintenanceService.class).isRunning()).isFalse();
            assertThat(context.getBean(ScheduleFirer.class).isRunning()).isFalse();
            UUID whilePaused = trigger(runlane, "paused");
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> status(runlane, whilePaused) == RunStatus.QUEUED);

            context.restart();
            assertThat(context.getBean(RunWorker.class).isRunning()).isTrue();
            assertThat(context.getBean(MaintenanceService.class).isRunning()).isTrue();
            assertThat(context.getBean(ScheduleFirer.class).isRunning()).isTrue();
            assertExecuted(runlane, whilePaused);
            assertExecuted(runlane, trigger(runlane, "restarted"));
        }
    }

    @Test
    @DisplayName("S-EX-28: after context.stop() and context.start(), and after a pause and restart that follow, the"
            + " worker runs again and executes new runs")
    void workerRunsAgainAfterStopAndStart() {
        try (ConfigurableApplicationContext context = start()) {
            RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);
            assertExecuted(runlane, trigger(runlane, "before"));

            context.stop();
            assertThat(context.getBean(RunWorker.class).isRunning()).isFalse();

            context.start();
            assertThat(context.getBean(RunWorker.class).isRunning()).isTrue();
            assertExecuted(runlane, trigger(runlane, "started"));

            context.pause();
            context.restart();
            assertExecuted(runlane, trigger(runlane, "restarted"));
        }
    }

    @Test
    @DisplayName("S-EX-28: on the first start nothing is claimed before ApplicationReadyEvent: a run triggered by an"
            + " application runner stays queued until the application is ready, then runs")
    void nothingIsClaimedBeforeTheApplicationIsReady() {
        try (ConfigurableApplicationContext context = start("--runlane.test.trigger-in-runner=true")) {
            assertThat(queuedDuringRunners).as("queued while the runners ran").isTrue();
            assertExecuted(context.getBean(RunlaneTemplate.class), triggeredByRunner);
        }
    }

    private static UUID trigger(RunlaneTemplate runlane, String name) {
        return runlane.trigger(Record.class, new Record.Payload(name)).runId();
    }

    private static void assertExecuted(RunlaneTemplate runlane, UUID runId) {
        await().atMost(Duration.ofSeconds(20)).until(() -> status(runlane, runId) == RunStatus.SUCCEEDED);
        assertThat(EXECUTED).contains(runId);
    }

    private static RunStatus status(RunlaneTemplate runlane, UUID runId) {
        return runlane.runs().get(runId).orElseThrow().status();
    }

    private ConfigurableApplicationContext start(String... arguments) {
        String[] common = {
            "--spring.datasource.url=" + TestDatabase.jdbcUrl(),
            "--spring.datasource.hikari.maximum-pool-size=4",
            "--runlane.schema.name=" + schema,
            "--runlane.worker.poll-interval=50ms",
            "--runlane.worker.shutdown-timeout=5s"
        };
        String[] all = new String[common.length + arguments.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(arguments, 0, all, common.length, arguments.length);
        return new SpringApplicationBuilder(LifecycleApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(all);
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        TaskExecutionAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    @Import(Record.class)
    static class LifecycleApplication {

        /** With {@code runlane.test.trigger-in-runner}, triggers a run and checks it stays queued meanwhile. */
        @Bean
        ApplicationRunner triggerBeforeReady(RunlaneTemplate runlane, Environment env) {
            return args -> {
                if (!env.getProperty("runlane.test.trigger-in-runner", Boolean.class, false)) {
                    return;
                }
                UUID runId = trigger(runlane, "runner");
                triggeredByRunner = runId;
                await().during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> status(runlane, runId) == RunStatus.QUEUED);
                queuedDuringRunners = true;
            };
        }
    }

    @Task(id = "lifecycle.record")
    static class Record implements TaskHandler<Record.Payload> {

        record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED.add(context.runId());
        }
    }
}

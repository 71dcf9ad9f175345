package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
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
import org.springframework.core.task.TaskDecorator;

/**
 * The worker follows Boot's conventions (issue 15, item 8): it starts when the application is ready, its handlers run
 * on an executor from Boot's builder (the application's {@link TaskDecorator}, virtual threads when enabled), and its
 * shutdown timeout stays within {@code spring.lifecycle.timeout-per-shutdown-phase}.
 */
@RunlaneDatabaseTest
class WorkerThreadsFromBootIntegrationTests {

    /** What each handler saw, by run id: its thread and the MDC value the decorator carried over. */
    static final Map<UUID, String> SEEN = new ConcurrentHashMap<>();

    /** Whether the worker was running when the application's runners ran. */
    static volatile Boolean runningDuringRunners;

    @FreshSchema("boot_threads")
    private String schema;

    @BeforeEach
    void forgetWhatWasSeen() {
        SEEN.clear();
        runningDuringRunners = null;
    }

    @Test
    @DisplayName("Issue 15.8: the worker starts on ApplicationReadyEvent, after the application's runners")
    void workerStartsWhenTheApplicationIsReady() {
        try (ConfigurableApplicationContext context = start()) {
            assertThat(runningDuringRunners).as("running while runners ran").isFalse();
            assertThat(context.getBean(RunWorker.class).isRunning()).isTrue();
        }
    }

    @Test
    @DisplayName("Issue 15.8: handlers run on Boot's executor, decorated by the application's TaskDecorator")
    void handlersRunOnBootsExecutorWithTheTaskDecorator() {
        try (ConfigurableApplicationContext context = start()) {
            UUID runId = context.getBean(RunlaneTemplate.class)
                    .trigger(Record.class, new Record.Payload("x"))
                    .runId();
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.containsKey(runId));
            assertThat(SEEN.get(runId)).startsWith("runlane-attempt-").endsWith("|decorated");
            assertThat(context.getBean(RunlaneTemplate.class)
                            .runs()
                            .get(runId)
                            .orElseThrow()
                            .status())
                    .isIn(RunStatus.RUNNING, RunStatus.SUCCEEDED);
        }
    }

    @Test
    @DisplayName("Issue 15.8: with spring.threads.virtual.enabled=true on Java 21+, handlers run on virtual threads")
    void handlersRunOnVirtualThreadsWhenEnabled() {
        assumeThat(Runtime.version().feature()).isGreaterThanOrEqualTo(21);
        try (ConfigurableApplicationContext context = start("--spring.threads.virtual.enabled=true")) {
            UUID runId = context.getBean(RunlaneTemplate.class)
                    .trigger(Record.class, new Record.Payload("virtual"))
                    .runId();
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.containsKey(runId));
            assertThat(SEEN.get(runId)).contains("|virtual");
        }
    }

    @Test
    @DisplayName("Issue 15.8: the worker's shutdown timeout stays within spring.lifecycle.timeout-per-shutdown-phase")
    void shutdownTimeoutHonoursTheShutdownPhaseTimeout() {
        try (ConfigurableApplicationContext context =
                start("--spring.lifecycle.timeout-per-shutdown-phase=5s", "--runlane.worker.shutdown-timeout=30s")) {
            assertThat(context.getBean(ExecutionSettings.class).shutdownTimeout())
                    .isEqualTo(Duration.ofSeconds(5));
        }
        try (ConfigurableApplicationContext context =
                start("--spring.lifecycle.timeout-per-shutdown-phase=1m", "--runlane.worker.shutdown-timeout=10s")) {
            assertThat(context.getBean(ExecutionSettings.class).shutdownTimeout())
                    .isEqualTo(Duration.ofSeconds(10));
        }
    }

    private ConfigurableApplicationContext start(String... arguments) {
        String[] common = {
            "--spring.datasource.url=" + TestDatabase.jdbcUrl(),
            "--spring.datasource.hikari.maximum-pool-size=4",
            "--runlane.schema.name=" + schema,
            "--runlane.worker.poll-interval=50ms"
        };
        String[] all = new String[common.length + arguments.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(arguments, 0, all, common.length, arguments.length);
        return new SpringApplicationBuilder(ThreadsApplication.class)
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
    static class ThreadsApplication {

        /** Sets an MDC value around each task, as an application's decorator would set its MDC or security context. */
        @Bean
        TaskDecorator mdcTaskDecorator() {
            return task -> () -> {
                MDC.put("decorated", "yes");
                try {
                    task.run();
                } finally {
                    MDC.remove("decorated");
                }
            };
        }

        @Bean
        ApplicationRunner recordWorkerState(RunWorker worker) {
            return args -> runningDuringRunners = worker.isRunning();
        }
    }

    @Task(id = "threads.record")
    static class Record implements TaskHandler<Record.Payload> {

        record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            Thread thread = Thread.currentThread();
            String virtual = thread.toString().startsWith("VirtualThread") ? "|virtual" : "";
            String decorated = "yes".equals(MDC.get("decorated")) ? "|decorated" : "";
            SEEN.put(context.runId(), thread.getName() + virtual + decorated);
        }
    }
}

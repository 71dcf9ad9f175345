package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
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

/** Closing an application context ends every thread Runlane started in it (S-MO-4). */
@RunlaneDatabaseTest
class EngineThreadsIntegrationTests {

    private static final int CONTEXTS = 20;

    @FreshSchema("engine_threads")
    private String schema;

    @Test
    @DisplayName("Finding 9 (S-MO-4): 20 contexts started, used and closed leave no Runlane thread behind")
    void closedContextsLeaveNoRunlaneThreads() {
        long baseline = runlaneThreads();
        for (int i = 0; i < CONTEXTS; i++) {
            try (ConfigurableApplicationContext context = start()) {
                RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
                UUID runId = template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-" + i, 1))
                        .runId();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> template.runs().get(runId).orElseThrow().status() == RunStatus.SUCCEEDED);
                assertThat(context.getBean(RunWorker.class).deadThreads()).isEmpty();
            }
        }
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(runlaneThreads())
                        .as("threads named runlane-* after closing %s contexts", CONTEXTS)
                        .isLessThanOrEqualTo(baseline));
    }

    private static long runlaneThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("runlane-"))
                .count();
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(Map.of(
                        "spring.datasource.url", TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size", "6",
                        "spring.datasource.hikari.pool-name", "engine-threads",
                        "runlane.schema.name", schema,
                        "runlane.worker.poll-interval", "100ms"))
                .run();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Import(ConfirmOrder.class)
    static class Application {}
}

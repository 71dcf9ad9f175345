package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** {@link RunDrainer} runs what is due and returns when it is done, so tests assert without sleeping (item 15). */
class RunDrainerIntegrationTests {

    static final CountDownLatch NEVER = new CountDownLatch(1);

    @AfterAll
    static void releaseTheWaitingTasks() {
        NEVER.countDown();
    }

    @Test
    @DisplayName("Issue 15.15: drain executes every due run, retries included, and returns when they are finished")
    void drainRunsDueRunsToTheirEnd() {
        try (ConfigurableApplicationContext context = start()) {
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
            List<UUID> ok = IntStream.range(0, 5)
                    .mapToObj(
                            i -> template.trigger(Succeeds.class, new Nothing()).runId())
                    .toList();
            UUID failing = template.trigger(FailsTwice.class, new Nothing()).runId();

            context.getBean(RunDrainer.class).drain(Duration.ofSeconds(30));

            assertThat(ok)
                    .allSatisfy(id -> assertThat(
                                    template.runs().get(id).orElseThrow().status())
                            .isEqualTo(RunStatus.SUCCEEDED));
            assertThat(template.runs().get(failing).orElseThrow())
                    .satisfies(run -> assertThat(run.status()).isEqualTo(RunStatus.FAILED))
                    .satisfies(run -> assertThat(run.attempts()).isEqualTo(2));
        }
    }

    @Test
    @DisplayName("Issue 15.15: a run scheduled for later is not due, and a run that does not end fails the drain")
    void drainIgnoresLaterRunsAndReportsRunsThatDoNotEnd() {
        try (ConfigurableApplicationContext context = start()) {
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
            UUID later = template.trigger(
                            Succeeds.class,
                            new Nothing(),
                            TriggerOptions.builder().delay(Duration.ofHours(1)).build())
                    .runId();
            RunDrainer drainer = context.getBean(RunDrainer.class);

            drainer.drain(Duration.ofSeconds(30));
            assertThat(template.runs().get(later).orElseThrow().status()).isEqualTo(RunStatus.SCHEDULED);

            template.trigger(Hangs.class, new Nothing());
            assertThatIllegalStateException()
                    .isThrownBy(() -> drainer.drain(Duration.ofMillis(500)))
                    .withMessageContaining("1 run(s) still due or running");
        }
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(DrainApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(
                        "--spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "--spring.datasource.hikari.maximum-pool-size=4",
                        "--runlane.schema.name=" + TestDatabase.freshSchema("drain"),
                        "--runlane.retry.initial-backoff=1ms",
                        "--runlane.worker.shutdown-timeout=100ms");
    }

    record Nothing() {}

    @Task(id = "drain.succeeds")
    static class Succeeds implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "drain.fails-twice", maxAttempts = 2)
    static class FailsTwice implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {
            throw new IllegalStateException("attempt " + context.attempt() + " failed");
        }
    }

    @Task(id = "drain.hangs", maxAttempts = 1)
    static class Hangs implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) throws InterruptedException {
            NEVER.await();
        }
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    @Import({Succeeds.class, FailsTwice.class, Hangs.class})
    static class DrainApplication {}
}

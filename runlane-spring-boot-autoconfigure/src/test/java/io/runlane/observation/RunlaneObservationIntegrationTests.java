package io.runlane.observation;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.autoconfigure.observation.RunlaneObservationAutoConfiguration;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Triggers and attempts are Micrometer observations with low-cardinality keys (issue 15, item 9). */
class RunlaneObservationIntegrationTests {

    /** The observation current inside the handler, by name. */
    static final List<String> CURRENT_IN_HANDLER = new CopyOnWriteArrayList<>();

    @Test
    @DisplayName("Issue 15.9: runlane.trigger and runlane.attempt are observed, the attempt current in its handler")
    void triggerAndAttemptAreObserved() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        RunlaneAutoConfiguration.class,
                        RunlaneObservationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "runlane.schema.name=" + TestDatabase.freshSchema("observed"),
                        "runlane.worker.poll-interval=50ms")
                .withBean(ObservationRegistry.class, () -> registry)
                .withBean(Observed.class, () -> new Observed(registry))
                .run(context -> {
                    context.getBean(RunWorker.class).start();
                    context.getBean(RunlaneTemplate.class).trigger(Observed.class, new Observed.Payload("a"));

                    await().atMost(Duration.ofSeconds(20)).until(() -> !CURRENT_IN_HANDLER.isEmpty());
                    await().atMost(Duration.ofSeconds(5))
                            .untilAsserted(() -> assertThat(registry)
                                    .hasObservationWithNameEqualTo("runlane.attempt")
                                    .that()
                                    .hasBeenStopped());

                    assertThat(registry)
                            .hasObservationWithNameEqualTo("runlane.trigger")
                            .that()
                            .hasBeenStarted()
                            .hasBeenStopped()
                            .hasLowCardinalityKeyValue("runlane.task", Observed.class.getName())
                            .hasLowCardinalityKeyValue("runlane.outcome", "created");
                    assertThat(registry)
                            .hasObservationWithNameEqualTo("runlane.attempt")
                            .that()
                            .hasLowCardinalityKeyValue("runlane.task", "observed.task")
                            .hasLowCardinalityKeyValue("runlane.queue", "default")
                            .doesNotHaveLowCardinalityKeyValueWithKey("runlane.run.id");
                    org.assertj.core.api.Assertions.assertThat(CURRENT_IN_HANDLER)
                            .containsExactly("runlane.attempt");
                });
    }

    @Task(id = "observed.task")
    static class Observed implements TaskHandler<Observed.Payload> {

        record Payload(String name) {}

        private final ObservationRegistry registry;

        Observed(ObservationRegistry registry) {
            this.registry = registry;
        }

        @Override
        public void run(Payload payload, RunContext context) {
            Observation current = registry.getCurrentObservation();
            CURRENT_IN_HANDLER.add(
                    current == null ? "none" : current.getContext().getName());
        }
    }
}

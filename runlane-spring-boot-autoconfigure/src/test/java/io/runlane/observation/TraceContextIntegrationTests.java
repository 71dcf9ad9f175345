package io.runlane.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.autoconfigure.observation.RunlaneObservationAutoConfiguration;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * S-MO-9: a run stores the trace context of its trigger and its attempts continue it (issue 15, item 9), seen through
 * the observation contexts; {@link TracedRunIntegrationTests} checks the same with a real tracer.
 */
@RunlaneDatabaseTest
class TraceContextIntegrationTests {

    static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    /** The run ids the handler ran, in order. */
    static final List<UUID> RAN = new CopyOnWriteArrayList<>();

    @Pool(size = 1)
    private static HikariDataSource admin;

    @BeforeEach
    void forgetRuns() {
        RAN.clear();
    }

    @Test
    @DisplayName("S-MO-9: the headers a tracer writes into the trigger's context are stored and handed to the attempt")
    void triggerHeadersAreStoredAndContinuedByTheAttempt(@FreshSchema("trace_stored") String schema) {
        TestObservationRegistry registry = TestObservationRegistry.create();
        AttemptCarriers attempts = new AttemptCarriers();
        registry.observationConfig().observationHandler(new InjectingTracer()).observationHandler(attempts);
        runner(schema).withBean(ObservationRegistry.class, () -> registry).run(context -> {
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
            UUID single =
                    template.trigger("traced.task", new Traced.Payload("one")).runId();
            List<UUID> batch = template
                    .triggerAll(List.of(
                            TriggerRequest.of("traced.task", new Traced.Payload("two"), TriggerOptions.none()),
                            TriggerRequest.of("traced.task", new Traced.Payload("three"), TriggerOptions.none())))
                    .stream()
                    .map(result -> result.runId())
                    .toList();

            assertThat(storedTraceContext(schema, single)).isEqualTo("{\"traceparent\": \"" + TRACEPARENT + "\"}");
            assertThat(batch)
                    .allSatisfy(id -> assertThat(storedTraceContext(schema, id))
                            .isEqualTo("{\"traceparent\": \"" + TRACEPARENT + "\"}"));

            context.getBean(RunWorker.class).start();
            await().atMost(Duration.ofSeconds(20)).until(() -> RAN.size() == 3);
            await().atMost(Duration.ofSeconds(5)).until(() -> attempts.carriers.size() == 3);
            assertThat(attempts.carriers)
                    .as("the carriers the attempts' receiver contexts were given")
                    .containsOnly(Map.of("traceparent", TRACEPARENT));
        });
    }

    @Test
    @DisplayName("S-MO-9: a trigger observed without a tracer stores NULL, and its attempt starts a trace of its own")
    void observedWithoutTracerStoresNothing(@FreshSchema("trace_untraced") String schema) {
        TestObservationRegistry registry = TestObservationRegistry.create();
        AttemptCarriers attempts = new AttemptCarriers();
        registry.observationConfig().observationHandler(attempts);
        runner(schema).withBean(ObservationRegistry.class, () -> registry).run(context -> {
            context.getBean(RunWorker.class).start();
            UUID runId = context.getBean(RunlaneTemplate.class)
                    .trigger("traced.task", new Traced.Payload("plain"))
                    .runId();

            await().atMost(Duration.ofSeconds(20)).until(() -> RAN.contains(runId));
            assertThat(storedTraceContext(schema, runId)).isNull();
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(attempts.carriers).containsExactly(Map.of()));
        });
    }

    @Test
    @DisplayName("S-MO-9: without observations, runs store NULL and run as before")
    void withoutObservationsNothingIsStored(@FreshSchema("trace_none") String schema) {
        runner(schema).run(context -> {
            assertThat(context).doesNotHaveBean(ObservationRegistry.class);
            context.getBean(RunWorker.class).start();
            UUID runId = context.getBean(RunlaneTemplate.class)
                    .trigger("traced.task", new Traced.Payload("plain"))
                    .runId();

            await().atMost(Duration.ofSeconds(20)).until(() -> RAN.contains(runId));
            assertThat(storedTraceContext(schema, runId)).isNull();
        });
    }

    private static ApplicationContextRunner runner(String schema) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        RunlaneAutoConfiguration.class,
                        RunlaneObservationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "runlane.schema.name=" + schema,
                        "runlane.worker.poll-interval=50ms")
                .withBean(Traced.class);
    }

    private static String storedTraceContext(String schema, UUID runId) {
        return new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT trace_context::text FROM " + schema + ".runs WHERE id = ?", String.class, runId);
    }

    /** Records the carrier of every {@code runlane.attempt} observation, whose context must be a receiver's. */
    @SuppressWarnings("rawtypes")
    static final class AttemptCarriers implements ObservationHandler<Observation.Context> {

        final List<Object> carriers = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            carriers.add(context instanceof ReceiverContext receiver ? receiver.getCarrier() : "not a receiver");
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return "runlane.attempt".equals(context.getName());
        }
    }

    /** Writes a fixed {@code traceparent} into every sender context, as a propagating tracing handler would. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class InjectingTracer implements ObservationHandler<SenderContext> {

        @Override
        public void onStart(SenderContext context) {
            context.getSetter().set(context.getCarrier(), "traceparent", TRACEPARENT);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof SenderContext;
        }
    }

    @Task(id = "traced.task")
    static class Traced implements TaskHandler<Traced.Payload> {

        record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            RAN.add(context.runId());
        }
    }
}

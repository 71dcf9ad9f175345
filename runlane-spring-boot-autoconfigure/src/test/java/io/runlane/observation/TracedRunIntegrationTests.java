package io.runlane.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.exporter.SpanReporter;
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
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * S-MO-9 with a real tracer, wired as a Boot application with Micrometer Tracing and Brave has it: a trigger inside a
 * request's span and the run's attempt, on a worker thread and after a trip through the database, form one trace
 * (request, then trigger, then attempt).
 */
class TracedRunIntegrationTests {

    /** The trace id the handler saw as current, by run. */
    static final List<String> TRACE_IDS_IN_HANDLER = new CopyOnWriteArrayList<>();

    @Test
    @DisplayName("S-MO-9: the attempt's span is in the trigger's trace, a child of the trigger's span")
    void attemptContinuesTheTriggersTrace() {
        List<FinishedSpan> spans = new CopyOnWriteArrayList<>();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ObservationAutoConfiguration.class,
                        MicrometerTracingAutoConfiguration.class,
                        BraveAutoConfiguration.class,
                        DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        RunlaneAutoConfiguration.class,
                        RunlaneObservationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "runlane.schema.name=" + TestDatabase.freshSchema("traced_run"),
                        "runlane.worker.poll-interval=50ms",
                        "management.tracing.sampling.probability=1.0")
                .withBean(SpanReporter.class, () -> spans::add)
                .withBean(Traced.class)
                .run(context -> {
                    context.getBean(RunWorker.class).start();
                    ObservationRegistry registry = context.getBean(ObservationRegistry.class);
                    RunlaneTemplate template = context.getBean(RunlaneTemplate.class);

                    UUID runId = Observation.createNotStarted("test.request", registry)
                            .observe(() -> template.trigger("traced.run", new Traced.Payload("a"))
                                    .runId());

                    await().atMost(Duration.ofSeconds(20)).until(() -> named(spans, "runlane attempt") != null);
                    FinishedSpan request = named(spans, "test.request");
                    FinishedSpan trigger = named(spans, "runlane trigger");
                    FinishedSpan attempt = named(spans, "runlane attempt");
                    assertThat(request).isNotNull();
                    assertThat(trigger).isNotNull();

                    assertThat(trigger.getTraceId()).isEqualTo(request.getTraceId());
                    assertThat(trigger.getParentId()).isEqualTo(request.getSpanId());
                    assertThat(trigger.getKind()).isEqualTo(Span.Kind.PRODUCER);
                    assertThat(attempt.getTraceId()).as("the attempt's trace").isEqualTo(request.getTraceId());
                    assertThat(attempt.getParentId())
                            .as("the attempt's parent span")
                            .isEqualTo(trigger.getSpanId());
                    assertThat(attempt.getKind()).isEqualTo(Span.Kind.CONSUMER);
                    assertThat(attempt.getTags()).containsEntry("runlane.run.id", runId.toString());
                    assertThat(TRACE_IDS_IN_HANDLER)
                            .as("the trace current in the handler")
                            .containsExactly(request.getTraceId());
                });
    }

    private static FinishedSpan named(List<FinishedSpan> spans, String prefix) {
        return spans.stream()
                .filter(span -> span.getName().toLowerCase(Locale.ROOT).startsWith(prefix))
                .findFirst()
                .orElse(null);
    }

    @Task(id = "traced.run")
    public static class Traced implements TaskHandler<Traced.Payload> {

        record Payload(String name) {}

        private final ObjectProvider<Tracer> tracer;

        public Traced(ObjectProvider<Tracer> tracer) {
            this.tracer = tracer;
        }

        @Override
        public void run(Payload payload, RunContext context) {
            Span current = tracer.getObject().currentSpan();
            TRACE_IDS_IN_HANDLER.add(
                    current == null ? "none" : current.context().traceId());
        }
    }
}

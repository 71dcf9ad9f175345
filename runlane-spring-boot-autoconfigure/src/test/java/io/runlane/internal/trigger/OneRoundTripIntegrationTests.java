package io.runlane.internal.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleDefinition;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-OP-13: each of Runlane's statements costs one round trip. The PostgreSQL driver adds a second (a {@code Sync}
 * and its answer, before the statement) to every execution of a server-prepared statement that has a parameter of
 * unspecified type and returns a column of unbounded size; a trigger with such a parameter took 75 instead of 40
 * microseconds on an idle loopback connection. The pool here prepares every statement on the server from its first
 * execution, and the workflow runs more times than the pool has connections, so each statement runs prepared on
 * some connection at least twice.
 */
class OneRoundTripIntegrationTests {

    private static final int CONNECTIONS = 4;

    /** A child's value, upper-cased. */
    @Task(id = "roundtrip.child")
    public static class Child implements TaskFunction<Child.Payload, String> {

        public record Payload(String value) {}

        @Override
        public String run(Payload payload, RunContext context) {
            return payload.value().toUpperCase();
        }
    }

    /** A step, a short sleep, a child triggered in a step and awaited, then a signal. */
    @Task(id = "roundtrip.parent")
    public static class Parent implements TaskFunction<Parent.Payload, String> {

        public record Payload(String value) {}

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            String prefix = context.step("prefix", String.class, step -> "p-");
            context.sleep("nap", Duration.ofMillis(1));
            UUID child = context.step(
                    "spawn",
                    UUID.class,
                    step -> context.runlane()
                            .trigger(
                                    "roundtrip.child",
                                    new Child.Payload(payload.value()),
                                    TriggerOptions.builder()
                                            .idempotencyKey(step.stepId())
                                            .build())
                            .runId());
            String childValue = context.awaitResult(child, String.class, Duration.ofSeconds(20));
            String signal = context.awaitSignal("go", String.class, Duration.ofSeconds(20))
                    .orElse("none");
            return prefix + childValue + "-" + signal;
        }
    }

    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private ForcedSyncRecorder forcedSyncs;

    @BeforeEach
    void start() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl());
        config.setMaximumPoolSize(CONNECTIONS);
        config.addDataSourceProperty("prepareThreshold", 1);
        dataSource = new HikariDataSource(config);
        runlane = TestRunlane.withSchedules(
                        dataSource,
                        TestDatabase.freshSchema(dataSource, "roundtrip"),
                        new ScheduleSettings(Duration.ofSeconds(1), Duration.ofHours(4)),
                        ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(100)),
                        EngineListener.NONE,
                        new Child(),
                        new Parent())
                .startWorker()
                .startFirer();
        forcedSyncs = new ForcedSyncRecorder();
    }

    @AfterEach
    void stop() {
        forcedSyncs.close();
        runlane.stop();
        dataSource.close();
    }

    @Test
    @DisplayName("S-OP-13: triggers of every shape, steps, sleeps, child runs, signals, schedules and reads each take"
            + " one round trip")
    void everyStatementTakesOneRoundTrip() {
        RunlaneTemplate template = runlane.template();
        for (int round = 0; round <= CONNECTIONS; round++) {
            String value = "v" + round;
            UUID parent = template.trigger(
                            "roundtrip.parent",
                            new Parent.Payload(value),
                            TriggerOptions.builder()
                                    .idempotencyKey("parent-" + round)
                                    .build())
                    .runId();
            template.trigger(
                    "roundtrip.parent",
                    new Parent.Payload(value),
                    TriggerOptions.builder().idempotencyKey("parent-" + round).build());
            template.signals().send(parent, "go", "signal-" + round);
            UUID scheduled = template.trigger(
                            "roundtrip.child",
                            new Child.Payload("later"),
                            TriggerOptions.builder()
                                    .runAt(Instant.now().plusSeconds(3600))
                                    .build())
                    .runId();
            template.trigger(
                    "roundtrip.child",
                    new Child.Payload("delayed"),
                    TriggerOptions.builder()
                            .delay(Duration.ofMillis(1))
                            .singletonKey("single-" + round)
                            .build());
            template.triggerAll(List.of(
                    TriggerRequest.of("roundtrip.child", new Child.Payload("a")),
                    TriggerRequest.of(
                            "roundtrip.child",
                            new Child.Payload("b"),
                            TriggerOptions.builder()
                                    .idempotencyKey("batch-" + round)
                                    .build())));

            Run finished = await().atMost(Duration.ofSeconds(30))
                    .until(() -> runlane.run(parent), run -> run.status() == RunStatus.SUCCEEDED);
            assertThat(finished.resultJson()).isEqualTo("\"p-" + value.toUpperCase() + "-signal-" + round + "\"");

            template.runs().cancel(scheduled, "not needed");
            template.runs().rerun(parent);
            template.runs().list(RunQuery.all());
            template.runs().events(parent);
            template.runs().steps(parent);
            template.runs().signals(parent);
            template.runs().findCurrent("roundtrip.parent", "parent-" + round);

            template.schedules()
                    .upsert(ScheduleDefinition.builder("every-minute", "roundtrip.child")
                            .every(Duration.ofMinutes(round + 1))
                            .payload(new Child.Payload("scheduled"))
                            .build());
            template.schedules().triggerNow("every-minute");
            template.schedules().pause("every-minute");
            template.schedules().resume("every-minute");
            template.schedules().list();
        }

        assertThat(forcedSyncs.statementsAfterForcedSync()).isEmpty();
    }
}

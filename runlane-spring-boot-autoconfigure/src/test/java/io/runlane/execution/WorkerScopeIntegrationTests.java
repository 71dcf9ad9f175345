package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which runs a worker takes: known tasks only (rolling deploys), its queues only, and child triggers. */
@RunlaneDatabaseTest
class WorkerScopeIntegrationTests {

    static final Map<UUID, String> EXECUTED_BY = new ConcurrentHashMap<>();

    @Task(id = "scope.old")
    public static class OldTask implements TaskHandler<OldTask.Payload> {

        public record Payload(String value) {}

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED_BY.put(context.runId(), "old");
        }
    }

    /** Only the newer deployment knows this task; its handler triggers a child run through its context. */
    @Task(id = "scope.new")
    public static class NewTask implements TaskHandler<NewTask.Payload> {

        public record Payload(String value) {}

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED_BY.put(context.runId(), "new");
            if (payload.value().equals("parent")) {
                context.runlane()
                        .trigger(
                                "scope.old",
                                new OldTask.Payload("child"),
                                TriggerOptions.builder()
                                        .idempotencyKey("child-of-" + context.runId())
                                        .build());
            }
        }
    }

    @Pool(size = 16)
    private HikariDataSource dataSource;

    @FreshSchema("worker_scope")
    private String schema;

    private TestRunlane instance(ExecutionSettings execution, io.runlane.TaskHandler<?>... handlers) {
        return TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of("reports")),
                execution,
                EngineListener.NONE,
                handlers);
    }

    private static ExecutionSettings fastPolling() {
        return ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(100));
    }

    @Test
    @DisplayName("S-EX-1: a worker leaves runs of tasks it does not know for instances that do (rolling deploys)")
    void unknownTasksAreLeftForOtherInstances() {
        TestRunlane oldDeployment = instance(fastPolling(), new OldTask()).startWorker();
        TestRunlane newDeployment = instance(fastPolling(), new OldTask(), new NewTask());
        try {
            UUID unknownToOld = newDeployment
                    .template()
                    .trigger("scope.new", new NewTask.Payload("x"))
                    .runId();
            UUID known = newDeployment
                    .template()
                    .trigger("scope.old", new OldTask.Payload("x"))
                    .runId();

            // The old worker claimed the run created after the unknown one, so it saw and skipped it.
            await().until(() -> oldDeployment.run(known).status() == RunStatus.SUCCEEDED);
            Run waiting = oldDeployment.run(unknownToOld);
            assertThat(waiting.status()).isEqualTo(RunStatus.QUEUED);
            assertThat(waiting.attempts()).isZero();

            newDeployment.startWorker();
            await().until(() -> newDeployment.run(unknownToOld).status() == RunStatus.SUCCEEDED);
            assertThat(EXECUTED_BY.get(unknownToOld)).isEqualTo("new");
        } finally {
            oldDeployment.stop();
            newDeployment.stop();
        }
    }

    @Test
    @DisplayName("S-QC-1: a worker limited to some queues leaves the others alone")
    void workerConsumesOnlyItsQueues() {
        TestRunlane reportsOnly = instance(fastPolling().withQueues(Set.of("reports")), new OldTask())
                .startWorker();
        try {
            UUID inDefault = reportsOnly
                    .template()
                    .trigger("scope.old", new OldTask.Payload("d"))
                    .runId();
            UUID inReports = reportsOnly
                    .template()
                    .trigger(
                            "scope.old",
                            new OldTask.Payload("r"),
                            TriggerOptions.builder().queue("reports").build())
                    .runId();

            await().until(() -> reportsOnly.run(inReports).status() == RunStatus.SUCCEEDED);
            assertThat(reportsOnly.run(inDefault).status()).isEqualTo(RunStatus.QUEUED);
        } finally {
            reportsOnly.stop();
        }
    }

    @Test
    @DisplayName("S-EX-9: a handler triggers child runs through its context, and they execute")
    void handlerTriggersAChildRun() {
        TestRunlane runlane =
                instance(fastPolling(), new OldTask(), new NewTask()).startWorker();
        try {
            UUID parent = runlane.template()
                    .trigger("scope.new", new NewTask.Payload("parent"))
                    .runId();

            await().until(() -> runlane.run(parent).status() == RunStatus.SUCCEEDED);
            UUID child = runlane.template()
                    .runs()
                    .findCurrent("scope.old", "child-of-" + parent)
                    .map(Run::id)
                    .orElseThrow();
            await().until(() -> runlane.run(child).status() == RunStatus.SUCCEEDED);
            assertThat(EXECUTED_BY.get(child)).isEqualTo("old");
        } finally {
            runlane.stop();
        }
    }
}

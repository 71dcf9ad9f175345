package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Sharing a worker's slots between its queues (S-QC-5). */
@RunlaneDatabaseTest
class QueueFairnessIntegrationTests {

    private static final String BACKLOG = "default";

    private static final String PAYMENTS = "payments";

    private static final String REPORTS = "reports";

    /** Works for a few milliseconds. */
    @Task(id = "fairness.work")
    public static class Work implements TaskHandler<Work.Payload> {

        public record Payload(int millis) {}

        @Override
        public void run(Payload payload, RunContext context) {
            // Simulates work, not waiting for state.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(payload.millis()));
        }
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("fairness") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of(BACKLOG, PAYMENTS, REPORTS)),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(50))
                        .withConcurrencyLimits(Map.of(PAYMENTS, 1, REPORTS, 1)),
                EngineListener.NONE,
                new Work());
    }

    @AfterEach
    void stop() {
        runlane.stop();
        runlane.engine().close();
    }

    @Test
    @DisplayName("Finding 5 (S-QC-5): limited queues progress while an unlimited queue has a deep backlog")
    void limitedQueuesProgressBesideADeepBacklog() {
        trigger(BACKLOG, 400);
        trigger(PAYMENTS, 5);
        trigger(REPORTS, 5);

        runlane.startWorker();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> succeeded(PAYMENTS) >= 3 && succeeded(REPORTS) >= 3 && succeeded(BACKLOG) >= 3);
        assertThat(waiting(BACKLOG))
                .as("the unlimited queue still has its backlog while the limited queues progressed")
                .isGreaterThan(200);
    }

    private void trigger(String queue, int runs) {
        List<TriggerRequest> requests = IntStream.range(0, runs)
                .mapToObj(i -> TriggerRequest.of(
                        "fairness.work",
                        new Work.Payload(5),
                        TriggerOptions.builder().queue(queue).build()))
                .toList();
        runlane.template().triggerAll(requests);
    }

    private long succeeded(String queue) {
        return count(queue, "status = '" + RunStatus.SUCCEEDED + "'");
    }

    private long waiting(String queue) {
        return count(queue, "status = '" + RunStatus.QUEUED + "'");
    }

    private long count(String queue, String condition) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE queue = ? AND " + condition,
                        Long.class,
                        queue);
    }
}

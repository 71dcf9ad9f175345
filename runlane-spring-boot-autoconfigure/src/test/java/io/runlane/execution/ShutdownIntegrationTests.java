package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-8: graceful shutdown stops claiming, lets attempts finish, and never loses a run. */
@RunlaneDatabaseTest
class ShutdownIntegrationTests {

    static volatile CountDownLatch release = new CountDownLatch(0);

    static final AtomicInteger STARTED = new AtomicInteger();

    @Task(id = "shutdown.blocking")
    public static class Blocking implements TaskHandler<Blocking.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            STARTED.incrementAndGet();
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        }
    }

    @Pool(size = 16)
    private HikariDataSource dataSource;

    @FreshSchema("shutdown")
    private String schema;

    @BeforeEach
    void start() {
        STARTED.set(0);
    }

    @AfterEach
    void stop() {
        release.countDown();
    }

    private TestRunlane runtime(Duration shutdownTimeout) {
        return TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withLease(Duration.ofSeconds(1), Duration.ofMillis(200))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withRecoveryInterval(Duration.ofMillis(200))
                        .withShutdownTimeout(shutdownTimeout),
                EngineListener.NONE,
                new Blocking());
    }

    private List<UUID> trigger(TestRunlane runlane, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> runlane.template()
                        .trigger("shutdown.blocking", new Blocking.Payload(i))
                        .runId())
                .toList();
    }

    @Test
    @DisplayName("S-EX-8: stopping waits for running attempts, stops claiming, and leaves the rest waiting")
    void stopWaitsForRunningAttemptsAndStopsClaiming() throws Exception {
        release = new CountDownLatch(1);
        TestRunlane runlane = runtime(Duration.ofSeconds(20)).startWorker();
        List<UUID> runIds = trigger(runlane, 5);
        await().until(() -> STARTED.get() == 2);

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(runlane::stop);
        await().until(() -> !runlane.engine().worker().isRunning());
        assertThat(stopping).isNotDone();
        release.countDown();
        stopping.get(30, TimeUnit.SECONDS);

        List<RunStatus> statuses =
                runIds.stream().map(id -> runlane.run(id).status()).toList();
        assertThat(statuses).filteredOn(status -> status == RunStatus.SUCCEEDED).hasSize(2);
        assertThat(statuses).filteredOn(status -> status == RunStatus.QUEUED).hasSize(3);
        assertThat(STARTED.get()).isEqualTo(2);
    }

    @Test
    @DisplayName("S-EX-8: attempts still running after the timeout are recovered by another instance, never lost")
    void attemptsBeyondTheTimeoutAreRecovered() {
        CountDownLatch stuck = new CountDownLatch(1);
        release = stuck;
        TestRunlane stopping = runtime(Duration.ofMillis(200)).startWorker();
        List<UUID> runIds = trigger(stopping, 2);
        await().until(() -> STARTED.get() == 2);

        stopping.stop();
        assertThat(runIds)
                .allSatisfy(id -> assertThat(stopping.run(id).status()).isEqualTo(RunStatus.RUNNING));

        release = new CountDownLatch(0);
        TestRunlane successor = runtime(Duration.ofSeconds(5)).startWorker().startMaintenance();
        try {
            List<Run> finished = runIds.stream()
                    .map(id -> await().atMost(Duration.ofSeconds(20))
                            .until(() -> successor.run(id), run -> run.status() == RunStatus.SUCCEEDED))
                    .toList();
            assertThat(finished).allSatisfy(run -> assertThat(run.attempts()).isEqualTo(2));
        } finally {
            stuck.countDown();
            successor.stop();
        }
    }
}

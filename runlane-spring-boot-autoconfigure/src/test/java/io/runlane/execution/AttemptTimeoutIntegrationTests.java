package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
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
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Attempts that never end: the attempt timeout (S-EX-21) and the cancellation grace (S-CA-5). */
@RunlaneDatabaseTest
class AttemptTimeoutIntegrationTests {

    private static final String LIMITED = "limited";

    /** Blocks until interrupted, and remembers that it was. */
    @Task(id = "timeout.blocks", timeout = "1s", maxAttempts = 1)
    public static class Blocks implements TaskHandler<Blocks.Payload> {

        public record Payload(int n) {}

        static final AtomicBoolean INTERRUPTED = new AtomicBoolean();

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException ex) {
                INTERRUPTED.set(true);
                throw ex;
            }
        }
    }

    /** Ignores cancellation and interrupts until the test lets it go, then returns normally. */
    @Task(id = "timeout.stubborn", queue = LIMITED)
    public static class Stubborn implements TaskHandler<Stubborn.Payload> {

        public record Payload(int n) {}

        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) {
            while (true) {
                try {
                    if (release.await(1, TimeUnit.HOURS)) {
                        return;
                    }
                } catch (InterruptedException ignored) {
                    // A stubborn handler ignores interrupts; only the test's latch ends it.
                }
            }
        }
    }

    /** Has no timeout of its own; blocks until interrupted. */
    @Task(id = "timeout.default", maxAttempts = 2)
    public static class UsesTheDefault implements TaskHandler<UsesTheDefault.Payload> {

        public record Payload(int n) {}

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            new CountDownLatch(1).await();
        }
    }

    @Task(id = "timeout.quick", queue = LIMITED)
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(int n) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("timeout") String schema) {
        Blocks.INTERRUPTED.set(false);
        Stubborn.release = new CountDownLatch(1);
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of(LIMITED)),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(50))
                        .withLease(Duration.ofSeconds(30), Duration.ofMillis(200))
                        .withConcurrencyLimits(Map.of(LIMITED, 1))
                        .withRecoveryInterval(Duration.ofMillis(200))
                        .withCancellationGrace(Duration.ofSeconds(1))
                        .withShutdownTimeout(Duration.ofSeconds(1)),
                EngineListener.NONE,
                new Blocks(),
                new Stubborn(),
                new Quick());
    }

    private TestRunlane withDefaultTimeout(Duration attemptTimeout) {
        runlane.stop();
        runlane = TestRunlane.withExecution(
                dataSource,
                runlane.schema(),
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(50))
                        .withLease(Duration.ofSeconds(30), Duration.ofMillis(200))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withAttemptTimeout(attemptTimeout),
                EngineListener.NONE,
                new UsesTheDefault());
        return runlane;
    }

    @AfterEach
    void stop() {
        Stubborn.release.countDown();
        runlane.stop();
    }

    @Test
    @DisplayName("Finding 8, S-EX-21: an attempt past its @Task timeout fails with attempt_timeout and its thread is"
            + " interrupted")
    void attemptPastItsTimeoutFailsAndIsInterrupted() {
        UUID runId = runlane.template()
                .trigger("timeout.blocks", new Blocks.Payload(1))
                .runId();
        runlane.startWorker();

        // The lease is 30 s: only the timeout ends the attempt this soon.
        Run failed = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId), run -> run.status() == RunStatus.FAILED);
        assertThat(failed.failure().code()).isEqualTo("attempt_timeout");
        assertThat(failed.failure().message()).contains("PT1S");
        await().atMost(Duration.ofSeconds(10)).untilTrue(Blocks.INTERRUPTED);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().worker().inFlight() == 0);
        assertThat(runlane.run(runId))
                .as("the handler's late failure is not recorded")
                .isEqualTo(failed);
    }

    @Test
    @DisplayName("Finding 8, S-EX-21, S-EX-4: runlane.worker.attempt-timeout applies to tasks without their own, and a"
            + " timed-out attempt is retried by the retry policy")
    void configuredAttemptTimeoutAppliesAndIsRetried() {
        TestRunlane configured = withDefaultTimeout(Duration.ofMillis(500));
        UUID runId = configured
                .template()
                .trigger("timeout.default", new UsesTheDefault.Payload(1))
                .runId();
        configured.startWorker();

        Run failed = await().atMost(Duration.ofSeconds(15))
                .until(() -> configured.run(runId), run -> run.status() == RunStatus.FAILED);
        assertThat(failed.attempts()).as("the first timeout was retried").isEqualTo(2);
        assertThat(failed.failure().code()).isEqualTo("attempt_timeout");
        assertThat(configured.template().runs().events(runId))
                .extracting(RunEvent::type)
                .contains(RunEventType.RETRY_SCHEDULED);
    }

    @Test
    @DisplayName("Finding 8, S-CA-5: a run whose handler ignores its cancellation is CANCELLED after the grace, and"
            + " its queue's limit of 1 lets the next run execute")
    void ignoredCancellationEndsAfterTheGraceAndFreesTheLimit() {
        runlane.startWorker().startMaintenance();
        UUID stuck = runlane.template()
                .trigger("timeout.stubborn", new Stubborn.Payload(1))
                .runId();
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(stuck).status() == RunStatus.RUNNING);
        runlane.template().runs().cancel(stuck, "stop it");
        assertThat(runlane.run(stuck).status()).isEqualTo(RunStatus.CANCELLATION_REQUESTED);
        UUID next = runlane.template()
                .trigger("timeout.quick", new Quick.Payload(1))
                .runId();

        await().atMost(Duration.ofSeconds(15)).until(() -> runlane.run(next).status() == RunStatus.SUCCEEDED);
        Run cancelled = runlane.run(stuck);
        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
        List<RunEvent> events = runlane.template().runs().events(stuck);
        assertThat(events.get(events.size() - 1).detail()).contains("cancellation grace");
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> runlane.engine().worker().overdueAttempts(),
                        overdue -> overdue.stream()
                                .anyMatch(line -> line.contains(stuck.toString()) && line.contains("grace")));

        Stubborn.release.countDown();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.engine().worker().inFlight() == 0);
        assertThat(runlane.run(stuck))
                .as("the handler's late return is refused")
                .isEqualTo(cancelled);
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
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
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-EX-29: while attempts end faster than a claim takes, a claim also takes up to one run ahead per slot, which the
 * next slot to free up runs; slower handlers are never claimed ahead, and a run claimed ahead that no slot takes in
 * time is handed back (S-EX-17). Every run still executes exactly once (S-EX-1).
 */
@RunlaneDatabaseTest
class ClaimAheadIntegrationTests {

    @Task(id = "ahead.quick")
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(int index) {}

        static final Map<UUID, AtomicInteger> EXECUTIONS = new ConcurrentHashMap<>();

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
        }
    }

    @Task(id = "ahead.slow")
    public static class Slow implements TaskHandler<Slow.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            Thread.sleep(150);
        }
    }

    /** Holds its slot until the test lets it go. */
    @Task(id = "ahead.blocking")
    public static class Blocking implements TaskHandler<Blocking.Payload> {

        public record Payload(int index) {}

        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            release.await(60, TimeUnit.SECONDS);
        }
    }

    @Pool(size = 12)
    private HikariDataSource dataSource;

    @FreshSchema("ahead")
    private String schema;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        Quick.EXECUTIONS.clear();
        Blocking.release = new CountDownLatch(1);
    }

    @AfterEach
    void stop() {
        Blocking.release.countDown();
        if (runlane != null) {
            runlane.stop();
        }
    }

    private TestRunlane runlane(int concurrency, Duration pollInterval) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults().withWorker(concurrency, pollInterval),
                EngineListener.NONE,
                new Quick(),
                new Slow(),
                new Blocking());
        return runlane;
    }

    @Test
    @DisplayName("S-EX-29, S-EX-1: short handlers are claimed up to one run ahead per slot, each executed once")
    void shortHandlersAreClaimedAhead() {
        runlane(2, Duration.ofMillis(100));
        List<UUID> runIds = runlane
                .template()
                .triggerAll(IntStream.range(0, 400)
                        .mapToObj(i -> TriggerRequest.of("ahead.quick", new Quick.Payload(i)))
                        .toList())
                .stream()
                .map(result -> result.runId())
                .toList();
        runlane.startWorker();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> runIds.stream().allMatch(id -> runlane.run(id).status() == RunStatus.SUCCEEDED));

        assertThat(runIds).allSatisfy(id -> {
            assertThat(Quick.EXECUTIONS.get(id)).as("run %s executed once", id).hasValue(1);
            assertThat(runlane.run(id).attempts()).isOne();
        });
        assertThat(largestClaim("ahead.quick"))
                .as("some claims took runs ahead of the 2 slots, never more than one per slot")
                .isBetween(3, 4);
    }

    @Test
    @DisplayName("S-EX-29: handlers slower than a claim are claimed only for free slots")
    void slowHandlersAreNotClaimedAhead() {
        runlane(2, Duration.ofMillis(50));
        List<UUID> runIds = IntStream.range(0, 8)
                .mapToObj(i -> runlane.template()
                        .trigger("ahead.slow", new Slow.Payload(i))
                        .runId())
                .toList();
        runlane.startWorker();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> runIds.stream().allMatch(id -> runlane.run(id).status() == RunStatus.SUCCEEDED));

        assertThat(largestClaim("ahead.slow")).isBetween(1, 2);
    }

    @Test
    @DisplayName("S-EX-29, S-EX-17: a run claimed ahead that no slot takes within the poll interval is handed back"
            + " without spending budget, and runs once a slot frees up")
    void runWaitingTooLongIsHandedBack() {
        runlane(1, Duration.ofMillis(300));
        runlane.template()
                .triggerAll(IntStream.range(0, 200)
                        .mapToObj(i -> TriggerRequest.of("ahead.quick", new Quick.Payload(i)))
                        .toList());
        UUID blocking = runlane.template()
                .trigger("ahead.blocking", new Blocking.Payload(0))
                .runId();
        List<UUID> behind = IntStream.range(0, 3)
                .mapToObj(i -> runlane.template()
                        .trigger("ahead.quick", new Quick.Payload(1000 + i))
                        .runId())
                .toList();
        runlane.startWorker();

        await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(blocking).status() == RunStatus.RUNNING);
        UUID handedBack = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> behind.stream()
                                .filter(id -> types(id).contains(RunEventType.HANDED_BACK))
                                .findFirst()
                                .orElse(null),
                        id -> id != null);
        assertThat(Quick.EXECUTIONS).doesNotContainKey(handedBack);
        Blocking.release.countDown();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> behind.stream().allMatch(id -> runlane.run(id).status() == RunStatus.SUCCEEDED));
        assertThat(runlane.run(handedBack).attempts())
                .as("the hand-back spent no attempt")
                .isOne();
        assertThat(Quick.EXECUTIONS.get(handedBack)).hasValue(1);
    }

    private List<RunEventType> types(UUID runId) {
        return runlane.template().runs().events(runId).stream()
                .map(RunEvent::type)
                .toList();
    }

    /** The most runs of the task one claim statement took (one statement's events share its timestamp). */
    private int largestClaim(String taskId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT max(n) FROM (SELECT count(*) AS n FROM " + schema + ".run_events e JOIN " + schema
                                + ".runs r ON r.id = e.run_id WHERE e.type = 'CLAIMED' AND r.task_id = ?"
                                + " GROUP BY e.created_at) claims",
                        Integer.class,
                        taskId);
    }
}

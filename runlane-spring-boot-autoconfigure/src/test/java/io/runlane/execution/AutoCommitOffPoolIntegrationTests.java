package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runlane on a pool whose connections come with auto-commit off ({@code spring.datasource.hikari.auto-commit=false},
 * a common JPA tuning): every statement Runlane sends outside a transaction must still commit (S-TR-1, S-TR-3,
 * S-EX-1, S-EX-3, S-TR-14). The rows are counted through a second pool with auto-commit on, as another instance would
 * see them.
 */
@RunlaneDatabaseTest
class AutoCommitOffPoolIntegrationTests {

    static final Map<UUID, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    @Task(id = "autocommit.count", idempotencyKeyTtl = "1h")
    public static class Counted implements TaskHandler<Counted.Payload> {

        public record Payload(String key, String singleton) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.key();
        }

        @Override
        public String singletonKey(Payload payload) {
            return payload.singleton();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            CALLS.computeIfAbsent(context.runId(), id -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** Sleeps durably, records a step and waits for a signal: parking, wake-ups and step records all commit. */
    @Task(id = "autocommit.durable")
    public static class Durable implements TaskHandler<Durable.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.sleep("nap", Duration.ofMillis(50));
            context.step(
                    "count",
                    Integer.class,
                    step -> CALLS.computeIfAbsent(context.runId(), id -> new AtomicInteger())
                            .incrementAndGet());
            Optional<String> signal = context.awaitSignal("go", String.class, Duration.ofMinutes(1));
            if (signal.isEmpty()) {
                throw new IllegalStateException("no signal");
            }
        }
    }

    @Pool(size = 2)
    private static HikariDataSource admin;

    private static HikariDataSource manualCommit;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("autocommit_off") String schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl());
        config.setMaximumPoolSize(12);
        config.setMinimumIdle(0);
        config.setAutoCommit(false);
        config.setPoolName("runlane-test-autocommit-off");
        manualCommit = new HikariDataSource(config);
        runlane = TestRunlane.withExecution(
                        manualCommit,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults().withWorker(4, Duration.ofMillis(100)),
                        EngineListener.NONE,
                        new Counted(),
                        new Durable())
                .startWorker()
                .startMaintenance();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
        manualCommit.close();
    }

    private static long storedRuns(UUID... ids) {
        return new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE id = ANY(?)", Long.class, (Object)
                                ids);
    }

    private static RunStatus statusSeenByAnotherInstance(UUID runId) {
        return RunStatus.valueOf(new JdbcTemplate(admin)
                .queryForObject("SELECT status FROM " + runlane.schema() + ".runs WHERE id = ?", String.class, runId));
    }

    @Test
    @DisplayName("S-TR-1, S-TR-14: a trigger outside any transaction is stored on an auto-commit-off pool")
    void singleTriggersAreStored() {
        TriggerResult plain = runlane.template().trigger("autocommit.count", new Counted.Payload(null, null));
        TriggerResult keyed =
                runlane.template().trigger("autocommit.count", new Counted.Payload("k-" + UUID.randomUUID(), null));
        TriggerResult singleton =
                runlane.template().trigger("autocommit.count", new Counted.Payload(null, "s-" + UUID.randomUUID()));

        assertThat(storedRuns(plain.runId(), keyed.runId(), singleton.runId())).isEqualTo(3);
    }

    @Test
    @DisplayName("S-TR-5, S-TR-13, S-TR-14: batches and group-committed triggers are stored on an auto-commit-off pool")
    void batchesAndGroupedTriggersAreStored() throws Exception {
        List<TriggerResult> batch = runlane.template()
                .triggerAll(IntStream.range(0, 20)
                        .mapToObj(i -> TriggerRequest.of(
                                "autocommit.count", new Counted.Payload("b-" + UUID.randomUUID(), null)))
                        .toList());
        List<TriggerResult> grouped = Concurrently.run(
                        16, i -> () -> runlane.template().trigger("autocommit.count", new Counted.Payload(null, null)))
                .stream()
                .map(Concurrently.Outcome::value)
                .toList();

        assertThat(batch).extracting(TriggerResult::outcome).containsOnly(TriggerOutcome.CREATED);
        assertThat(storedRuns(batch.stream().map(TriggerResult::runId).toArray(UUID[]::new)))
                .isEqualTo(20);
        assertThat(storedRuns(grouped.stream().map(TriggerResult::runId).toArray(UUID[]::new)))
                .isEqualTo(16);
    }

    @Test
    @DisplayName("S-EX-1, S-EX-3, S-TR-14: a run on an auto-commit-off pool is executed once and its success stored")
    void runIsExecutedOnce() {
        UUID runId = runlane.template()
                .trigger("autocommit.count", new Counted.Payload("once-" + UUID.randomUUID(), null))
                .runId();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> statusSeenByAnotherInstance(runId), RunStatus.SUCCEEDED::equals);
        assertThat(CALLS.get(runId)).hasValue(1);
        assertThat(runlane.run(runId).attempts()).isOne();
    }

    @Test
    @DisplayName("S-ST-3, S-ST-7, S-SG-1, S-SG-4, S-TR-14: sleeps, steps and signals commit on an auto-commit-off pool")
    void durableWaitsCommit() {
        UUID runId = runlane.template()
                .trigger("autocommit.durable", new Durable.Payload("w"))
                .runId();

        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> runlane.template().runs().steps(runId).stream()
                                .anyMatch(step -> step.name().equals("count")),
                        Boolean::booleanValue);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> statusSeenByAnotherInstance(runId), RunStatus.WAITING::equals);
        runlane.template().signals().send(runId, "go", "now");

        await().atMost(Duration.ofSeconds(30))
                .until(() -> statusSeenByAnotherInstance(runId), RunStatus.SUCCEEDED::equals);
        assertThat(CALLS.get(runId)).hasValue(1);
    }

    @Test
    @DisplayName(
            "S-TR-3, S-TR-14: a trigger joins the caller's transaction on an auto-commit-off pool, and rolls back with it")
    void callerTransactionIsJoined() {
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(manualCommit));

        UUID rolledBack = transactions.execute(status -> {
            UUID id = runlane.template()
                    .trigger("autocommit.count", new Counted.Payload("rb-" + UUID.randomUUID(), null))
                    .runId();
            status.setRollbackOnly();
            return id;
        });
        UUID committed = transactions.execute(status -> runlane.template()
                .trigger("autocommit.count", new Counted.Payload("c-" + UUID.randomUUID(), null))
                .runId());

        assertThat(storedRuns(rolledBack)).isZero();
        assertThat(storedRuns(committed)).isOne();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> statusSeenByAnotherInstance(committed), RunStatus.SUCCEEDED::equals);
        assertThat(CALLS.get(rolledBack)).isNull();
    }
}

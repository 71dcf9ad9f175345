package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.NonRetryableException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Queue concurrency limits (S-QC-2..4) enforced across two application instances: two engines on two connection
 * pools sharing one schema, each with four worker slots. Handlers count themselves in memory, and a sampler counts
 * running runs in the database, so that an overlap shows up in either place.
 */
class ConcurrencyLimitIntegrationTests {

    private static final String WORK = "limits.work";

    private static final String LIMITED = "limited";

    private static final String OPEN = "open";

    private static final int SLOTS_PER_INSTANCE = 4;

    /** Handlers running now and the most seen at once, by gauge name. */
    static final Map<String, Gauge> GAUGES = new ConcurrentHashMap<>();

    /** Latches that hold handlers running until a test lets them go, by hold name. */
    static final Map<String, Hold> HOLDS = new ConcurrentHashMap<>();

    /** Where handlers of different concurrency keys meet; only parallel runs get past it. */
    static final AtomicReference<CyclicBarrier> MEETING = new AtomicReference<>(new CyclicBarrier(2));

    static final class Gauge {

        final AtomicInteger current = new AtomicInteger();

        final AtomicInteger max = new AtomicInteger();

        void enter() {
            max.accumulateAndGet(current.incrementAndGet(), Math::max);
        }

        void exit() {
            current.decrementAndGet();
        }
    }

    static final class Hold {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch released = new CountDownLatch(1);
    }

    /**
     * Work on a queue chosen at trigger time: counts itself under its group (and its group and key), then holds,
     * meets a run of another key, or works for a few milliseconds.
     */
    @Task(id = WORK)
    public static class Work implements TaskHandler<Work.Payload> {

        public record Payload(
                String group,
                @Nullable String key,
                int workMillis,
                @Nullable String hold,
                boolean meet) {}

        @Override
        public @Nullable String concurrencyKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            List<Gauge> gauges = new ArrayList<>();
            gauges.add(gauge(payload.group()));
            if (payload.key() != null) {
                gauges.add(gauge(payload.group() + "/" + payload.key()));
            }
            gauges.forEach(Gauge::enter);
            try {
                if (payload.hold() != null) {
                    Hold hold = HOLDS.get(payload.hold());
                    hold.started.countDown();
                    if (!hold.released.await(20, TimeUnit.SECONDS)) {
                        throw new NonRetryableException("the test never released hold " + payload.hold());
                    }
                }
                if (payload.meet()) {
                    try {
                        MEETING.get().await(10, TimeUnit.SECONDS);
                    } catch (TimeoutException | BrokenBarrierException ex) {
                        throw new NonRetryableException("no run of another key ran at the same time", ex);
                    }
                }
                if (payload.workMillis() > 0) {
                    // Simulates work, not waiting for state.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(payload.workMillis()));
                }
            } finally {
                gauges.forEach(Gauge::exit);
            }
        }
    }

    /** Two application instances on one schema. */
    record Cluster(TestRunlane first, TestRunlane second) {

        Cluster start() {
            first.startWorker();
            second.startWorker();
            return this;
        }

        List<TestRunlane> instances() {
            return List.of(first, second);
        }
    }

    private final List<AutoCloseable> resources = Collections.synchronizedList(new ArrayList<>());

    private @Nullable HikariDataSource primary;

    private @Nullable TestRunlane runlane;

    @AfterEach
    void release() throws Exception {
        HOLDS.values().forEach(hold -> hold.released.countDown());
        MEETING.get().reset();
        List<AutoCloseable> closing = new ArrayList<>(resources);
        Collections.reverse(closing);
        for (AutoCloseable resource : closing) {
            resource.close();
        }
        resources.clear();
    }

    @ParameterizedTest(name = "limit {0}")
    @ValueSource(ints = {1, 3})
    @DisplayName("S-QC-2: a queue's concurrency limit holds across two instances with eight worker slots")
    void limitHoldsAcrossInstances(int limit) {
        Cluster cluster = cluster(Map.of(LIMITED, limit));
        String group = "limit-" + limit;
        List<UUID> runIds = triggerAll(IntStream.range(0, 40)
                .mapToObj(i -> request(new Work.Payload(group, null, 15, null, false), LIMITED))
                .toList());
        Sampler sampler = sampler(LIMITED);

        cluster.start();
        awaitCount(LIMITED, RunStatus.SUCCEEDED, runIds.size(), Duration.ofSeconds(20));
        sampler.close();

        assertThat(sampler.failure).hasValue(null);
        assertThat(sampler.samples.get()).isPositive();
        assertThat(sampler.maxRunning.get())
                .as("most running runs in the database")
                .isEqualTo(limit);
        assertThat(GAUGES.get(group).max.get())
                .as("most handlers running at once")
                .isEqualTo(limit);
        assertThat(runIds).allSatisfy(runId -> {
            Run run = runlane.run(runId);
            assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(run.attempts()).isOne();
        });
    }

    @Test
    @DisplayName("S-QC-3: with concurrency keys the limit applies per key: runs of two keys run in parallel, runs of"
            + " one key never overlap")
    void limitAppliesToEachConcurrencyKey() {
        Cluster cluster = cluster(Map.of(LIMITED, 1));
        String group = "keys";
        List<TriggerRequest> requests = new ArrayList<>();
        for (String key : List.of("A", "B")) {
            for (int i = 0; i < 4; i++) {
                requests.add(request(new Work.Payload(group, key, 20, null, true), LIMITED));
            }
        }
        List<UUID> runIds = triggerAll(requests);
        Sampler sampler = sampler(LIMITED);

        cluster.start();
        awaitAllFinished(LIMITED, Duration.ofSeconds(20));
        sampler.close();

        assertThat(runIds)
                .as("every run met a run of the other key at the barrier")
                .allSatisfy(runId -> assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.SUCCEEDED));
        assertThat(GAUGES.get(group + "/A").max.get()).isOne();
        assertThat(GAUGES.get(group + "/B").max.get()).isOne();
        assertThat(GAUGES.get(group).max.get()).isEqualTo(2);
        assertThat(sampler.failure).hasValue(null);
        assertThat(sampler.maxRunningPerKey.get()).isOne();
        assertThat(sampler.maxRunning.get()).isLessThanOrEqualTo(2);
    }

    @Test
    @DisplayName("S-QC-3: a backlog of one concurrency key does not hold back a run of another key")
    void backlogOfOneKeyDoesNotHoldBackAnotherKey() throws InterruptedException {
        Cluster cluster = cluster(Map.of(LIMITED, 1)).start();
        String group = "backlog";
        UUID holder = trigger(new Work.Payload(group, "A", 0, hold("a-holder"), false), LIMITED);
        awaitHeld("a-holder");
        // Far more waiting runs of key A than a claim looks ahead at, so that B must not depend on reaching them.
        List<UUID> backlog = triggerAll(IntStream.range(0, 100)
                .mapToObj(i -> request(new Work.Payload(group, "A", 0, null, false), LIMITED))
                .toList());

        UUID otherKey = trigger(new Work.Payload(group, "B", 0, null, false), LIMITED);

        await().atMost(Duration.ofSeconds(5)).until(() -> runlane.run(otherKey).status(), RunStatus.SUCCEEDED::equals);
        assertThat(runlane.run(holder).status()).isEqualTo(RunStatus.RUNNING);
        assertThat(backlog)
                .allSatisfy(runId -> assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.QUEUED));
        HOLDS.get("a-holder").released.countDown();
        awaitCount(LIMITED, RunStatus.SUCCEEDED, backlog.size() + 2, Duration.ofSeconds(20));
        assertThat(GAUGES.get(group + "/A").max.get()).isOne();
    }

    @Test
    @DisplayName("S-QC-4: runs waiting for capacity stay QUEUED, untouched, until capacity frees up")
    void runsWaitingForCapacityStayQueued() throws InterruptedException {
        Cluster cluster = cluster(Map.of(LIMITED, 1)).start();
        String group = "waiting";
        UUID holder = trigger(new Work.Payload(group, null, 0, hold("holder"), false), LIMITED);
        awaitHeld("holder");

        List<TriggerResult> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(runlane.template()
                    .trigger(
                            WORK,
                            new Work.Payload(group, null, 0, null, false),
                            TriggerOptions.builder().queue(LIMITED).build()));
        }
        awaitEveryInstancePolledTwice(cluster);

        assertThat(waiting).allSatisfy(result -> {
            assertThat(result.created()).isTrue();
            Run run = runlane.run(result.runId());
            assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
            assertThat(run.attempts()).isZero();
            assertThat(run.failure()).isNull();
            assertThat(runlane.template().runs().events(result.runId()))
                    .extracting(RunEvent::type)
                    .containsExactly(RunEventType.CREATED);
        });
        assertThat(runningInDatabase(LIMITED)).isOne();
        HOLDS.get("holder").released.countDown();
        awaitCount(LIMITED, RunStatus.SUCCEEDED, waiting.size() + 1, Duration.ofSeconds(20));
        assertThat(runlane.run(holder).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(GAUGES.get(group).max.get()).isOne();
    }

    @Test
    @DisplayName("S-QC-2, S-CA-2: a run asked to stop keeps its slot until its handler returns")
    void runAskedToStopKeepsItsSlot() throws InterruptedException {
        Cluster cluster = cluster(Map.of(LIMITED, 1)).start();
        String group = "stopping";
        UUID holder = trigger(new Work.Payload(group, null, 0, hold("stopping"), false), LIMITED);
        awaitHeld("stopping");
        assertThat(runlane.template().runs().cancel(holder, "make room").status())
                .isEqualTo(RunStatus.CANCELLATION_REQUESTED);

        UUID next = trigger(new Work.Payload(group, null, 0, null, false), LIMITED);
        awaitEveryInstancePolledTwice(cluster);

        assertThat(runlane.run(next).status()).isEqualTo(RunStatus.QUEUED);
        HOLDS.get("stopping").released.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(next).status(), RunStatus.SUCCEEDED::equals);
        assertThat(runlane.run(holder).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(GAUGES.get(group).max.get()).isOne();
    }

    @Test
    @DisplayName("S-QC-2: a queue without a limit is not held back by a limited queue's backlog")
    void queueWithoutLimitIsNotHeldBackByALimitedBacklog() throws InterruptedException {
        Cluster cluster = cluster(Map.of(LIMITED, 1)).start();
        UUID holder = trigger(new Work.Payload("held-back", null, 0, hold("backlog-holder"), false), LIMITED);
        awaitHeld("backlog-holder");
        List<UUID> limitedBacklog = triggerAll(IntStream.range(0, 30)
                .mapToObj(i -> request(new Work.Payload("held-back", null, 0, null, false), LIMITED))
                .toList());

        List<UUID> open = triggerAll(IntStream.range(0, 30)
                .mapToObj(i -> request(new Work.Payload("open", null, 10, null, false), OPEN))
                .toList());

        awaitCount(OPEN, RunStatus.SUCCEEDED, open.size(), Duration.ofSeconds(10));
        assertThat(GAUGES.get("open").max.get())
                .as("the open queue used more than the limited queue's one slot")
                .isGreaterThan(1);
        assertThat(runlane.run(holder).status()).isEqualTo(RunStatus.RUNNING);
        assertThat(countByStatus(LIMITED, RunStatus.QUEUED)).isEqualTo(limitedBacklog.size());
        HOLDS.get("backlog-holder").released.countDown();
        awaitCount(LIMITED, RunStatus.SUCCEEDED, limitedBacklog.size() + 1, Duration.ofSeconds(20));
        assertThat(GAUGES.get("held-back").max.get()).isOne();
    }

    private Cluster cluster(Map<String, Integer> concurrencyLimits) {
        HikariDataSource firstPool = track(TestDatabase.newDataSource(12));
        HikariDataSource secondPool = track(TestDatabase.newDataSource(12));
        String schema = TestDatabase.freshSchema(firstPool, "limits");
        ExecutionSettings execution = ExecutionSettings.defaults()
                .withWorker(SLOTS_PER_INSTANCE, Duration.ofMillis(50))
                .withShutdownTimeout(Duration.ofSeconds(5))
                .withConcurrencyLimits(concurrencyLimits);
        TestRunlane first = instance(firstPool, schema, execution);
        TestRunlane second = instance(secondPool, schema, execution);
        primary = firstPool;
        runlane = first;
        return new Cluster(first, second);
    }

    private TestRunlane instance(DataSource dataSource, String schema, ExecutionSettings execution) {
        TestRunlane instance = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of(LIMITED, OPEN)),
                execution,
                EngineListener.NONE,
                new Work());
        resources.add(instance::stop);
        return instance;
    }

    private HikariDataSource track(HikariDataSource dataSource) {
        resources.add(dataSource);
        return dataSource;
    }

    private Sampler sampler(String queue) {
        Sampler sampler = new Sampler(track(TestDatabase.newDataSource(1)), runlane.schema(), queue);
        resources.add(sampler);
        await().atMost(Duration.ofSeconds(10)).until(() -> sampler.samples.get() > 0 || sampler.failure.get() != null);
        return sampler;
    }

    private static Gauge gauge(String name) {
        return GAUGES.computeIfAbsent(name, ignored -> new Gauge());
    }

    private static String hold(String name) {
        HOLDS.put(name, new Hold());
        return name;
    }

    private static void awaitHeld(String name) throws InterruptedException {
        assertThat(HOLDS.get(name).started.await(10, TimeUnit.SECONDS))
                .as("the holding run started")
                .isTrue();
    }

    private static TriggerRequest request(Work.Payload payload, String queue) {
        return TriggerRequest.of(
                WORK, payload, TriggerOptions.builder().queue(queue).build());
    }

    private UUID trigger(Work.Payload payload, String queue) {
        return runlane.template()
                .trigger(WORK, payload, TriggerOptions.builder().queue(queue).build())
                .runId();
    }

    private List<UUID> triggerAll(List<TriggerRequest> requests) {
        return runlane.template().triggerAll(requests).stream()
                .map(TriggerResult::runId)
                .toList();
    }

    /** Waits until each instance has finished a poll that started after this call, so it saw every run so far. */
    private static void awaitEveryInstancePolledTwice(Cluster cluster) {
        for (int round = 0; round < 2; round++) {
            Instant since = Instant.now();
            for (TestRunlane instance : cluster.instances()) {
                RunWorker worker = instance.engine().worker();
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    Instant lastPoll = worker.lastPoll();
                    return lastPoll != null && lastPoll.isAfter(since);
                });
            }
        }
    }

    private void awaitCount(String queue, RunStatus status, int expected, Duration atMost) {
        await().atMost(atMost).until(() -> countByStatus(queue, status), count -> count == expected);
    }

    private void awaitAllFinished(String queue, Duration atMost) {
        await().atMost(atMost)
                .until(
                        () -> jdbc().queryForObject(
                                        "SELECT count(*) FROM " + runlane.schema()
                                                + ".runs WHERE queue = ? AND finished_at IS NULL",
                                        Integer.class,
                                        queue),
                        count -> count == 0);
    }

    private int countByStatus(String queue, RunStatus status) {
        return jdbc().queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE queue = ? AND status = ?",
                        Integer.class,
                        queue,
                        status.name());
    }

    private int runningInDatabase(String queue) {
        return jdbc().queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE queue = ?"
                                + " AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')",
                        Integer.class,
                        queue);
    }

    private JdbcTemplate jdbc() {
        return new JdbcTemplate(primary);
    }

    /**
     * Counts the queue's running runs in the database (S-QC-2 counts {@code RUNNING} and {@code
     * CANCELLATION_REQUESTED}) in a loop on its own connection, and keeps the most seen in total and per key.
     */
    static final class Sampler implements AutoCloseable {

        final AtomicInteger maxRunning = new AtomicInteger();

        final AtomicInteger maxRunningPerKey = new AtomicInteger();

        final AtomicInteger samples = new AtomicInteger();

        final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

        private final Thread thread;

        private volatile boolean sampling = true;

        Sampler(DataSource dataSource, String schema, String queue) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            String sql = "SELECT count(*) FROM " + schema + ".runs WHERE queue = ?"
                    + " AND status IN ('RUNNING', 'CANCELLATION_REQUESTED') GROUP BY concurrency_key";
            this.thread = new Thread(
                    () -> {
                        try {
                            while (sampling) {
                                List<Integer> perKey = jdbc.queryForList(sql, Integer.class, queue);
                                maxRunning.accumulateAndGet(
                                        perKey.stream()
                                                .mapToInt(Integer::intValue)
                                                .sum(),
                                        Math::max);
                                maxRunningPerKey.accumulateAndGet(
                                        perKey.stream()
                                                .mapToInt(Integer::intValue)
                                                .max()
                                                .orElse(0),
                                        Math::max);
                                samples.incrementAndGet();
                            }
                        } catch (RuntimeException ex) {
                            failure.set(ex);
                        }
                    },
                    "runlane-test-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            sampling = false;
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

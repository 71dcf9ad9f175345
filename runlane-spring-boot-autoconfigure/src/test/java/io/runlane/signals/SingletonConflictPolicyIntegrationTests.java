package io.runlane.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunSignal;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Singleton conflict policies (S-CP-1, S-CP-2, S-CP-4, S-CP-5): what a trigger does when its singleton key is held,
 * decided by the database against the key's current holder.
 */
@RunlaneDatabaseTest
class SingletonConflictPolicyIntegrationTests {

    static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();

    /**
     * An order: optionally holds at its gate (to be RUNNING), then collects {@code expected} signals named
     * {@code line} and returns them joined.
     */
    @Task(id = "policy.order")
    public static class Order implements TaskFunction<Order.Payload, String> {

        public record Payload(String key, String item, int expected) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public String run(Payload payload, RunContext context) throws Exception {
            CountDownLatch gate = GATES.get(payload.key());
            if (gate != null && context.attempt() == 1) {
                gate.await(30, TimeUnit.SECONDS);
            }
            List<String> items = new ArrayList<>();
            items.add(payload.item());
            for (int i = 0; i < payload.expected(); i++) {
                Optional<Payload> line = context.awaitSignal("line", Payload.class, Duration.ofSeconds(60));
                items.add(line.map(Payload::item).orElse("timeout"));
            }
            return String.join(",", items);
        }
    }

    /** Declares RETURN_OWNER on the task. */
    @Task(id = "policy.report", onSingletonConflict = SingletonConflictPolicy.RETURN_OWNER)
    public static class Report implements TaskFunction<Report.Payload, String> {

        public record Payload(String key) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public String run(Payload payload, RunContext context) {
            return payload.key();
        }
    }

    /** Triggers a report from inside a run: a child trigger follows the child task's policy too. */
    @Task(id = "policy.parent")
    public static class Parent implements TaskFunction<Report.Payload, String> {

        @Override
        public String run(Report.Payload payload, RunContext context) {
            TriggerResult child = context.runlane().trigger("policy.report", payload);
            return child.outcome() + " " + child.runId();
        }
    }

    @Pool(size = 40)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("policies") String schema) {
        GATES.clear();
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                settings -> settings,
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Order(),
                new Report(),
                new Parent());
    }

    @AfterEach
    void stop() {
        GATES.values().forEach(CountDownLatch::countDown);
        runlane.stop();
    }

    private static TriggerOptions policy(SingletonConflictPolicy policy) {
        return TriggerOptions.builder().onSingletonConflict(policy).build();
    }

    private static TriggerOptions signalOwner() {
        return TriggerOptions.builder()
                .onSingletonConflict(SingletonConflictPolicy.SIGNAL_OWNER)
                .signalName("line")
                .build();
    }

    private TriggerResult order(String key, String item, int expected, TriggerOptions options) {
        return runlane.template().trigger("policy.order", new Order.Payload(key, item, expected), options);
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    /** An owner in each active state the policies must handle: QUEUED, RUNNING, WAITING, CANCELLATION_REQUESTED. */
    private UUID owner(String key, RunStatus state) {
        if (state == RunStatus.RUNNING || state == RunStatus.CANCELLATION_REQUESTED) {
            GATES.put(key, new CountDownLatch(1));
        }
        UUID owner = order(key, "owner", 1, TriggerOptions.none()).runId();
        if (state != RunStatus.QUEUED) {
            runlane.startWorker();
            awaitStatus(owner, state == RunStatus.CANCELLATION_REQUESTED ? RunStatus.RUNNING : state);
        }
        if (state == RunStatus.CANCELLATION_REQUESTED) {
            assertThat(runlane.template().runs().cancel(owner, "test").status()).isEqualTo(state);
        }
        return owner;
    }

    @Test
    @DisplayName("S-SK-2, S-CP-1: FAIL is the default and writes nothing")
    void failIsTheDefault() {
        UUID owner = owner("k-fail", RunStatus.QUEUED);
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatThrownBy(() -> order("k-fail", "dup", 0, TriggerOptions.none()))
                .isInstanceOfSatisfying(
                        SingletonConflictException.class,
                        ex -> assertThat(ex.ownerRunId()).isEqualTo(owner));
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-CP-2: RETURN_OWNER returns a waiting, running, parked or cancelling owner and writes nothing,"
            + " not even the idempotency key")
    void returnOwnerReturnsTheOwnerInEveryActiveState() {
        for (RunStatus state :
                List.of(RunStatus.QUEUED, RunStatus.WAITING, RunStatus.RUNNING, RunStatus.CANCELLATION_REQUESTED)) {
            String key = "k-return-" + state;
            UUID owner = owner(key, state);
            TestRunlane.RowCounts before = runlane.rowCounts();

            TriggerResult result = order(
                    key,
                    "dup",
                    0,
                    TriggerOptions.builder()
                            .onSingletonConflict(SingletonConflictPolicy.RETURN_OWNER)
                            .idempotencyKey("dup-" + state)
                            .build());

            assertThat(result.outcome()).as(state.name()).isEqualTo(TriggerOutcome.RETURNED_SINGLETON_OWNER);
            assertThat(result.created()).isFalse();
            assertThat(result.runId()).isEqualTo(owner);
            assertThat(runlane.rowCounts()).as(state.name()).isEqualTo(before);
            assertThat(runlane.hasKeyRow("policy.order", "dup-" + state)).isFalse();
        }
    }

    @Test
    @DisplayName("S-CP-1, S-CP-2: @Task(onSingletonConflict = RETURN_OWNER) applies, a call overrides it")
    void taskPolicyAppliesAndACallOverridesIt() {
        UUID owner = runlane.template()
                .trigger("policy.report", new Report.Payload("r-1"))
                .runId();

        assertThat(runlane.template()
                        .trigger("policy.report", new Report.Payload("r-1"))
                        .outcome())
                .isEqualTo(TriggerOutcome.RETURNED_SINGLETON_OWNER);
        assertThatThrownBy(() -> runlane.template()
                        .trigger("policy.report", new Report.Payload("r-1"), policy(SingletonConflictPolicy.FAIL)))
                .isInstanceOfSatisfying(
                        SingletonConflictException.class,
                        ex -> assertThat(ex.ownerRunId()).isEqualTo(owner));
    }

    @Test
    @DisplayName("S-CP-5: a child trigger from a handler follows the child task's policy")
    void childTriggerFollowsThePolicy() {
        UUID owner = runlane.template()
                .trigger(
                        "policy.report",
                        new Report.Payload("r-child"),
                        TriggerOptions.builder().delay(Duration.ofHours(1)).build())
                .runId();
        UUID parent = runlane.template()
                .trigger("policy.parent", new Report.Payload("r-child"))
                .runId();

        runlane.startWorker();

        assertThat(awaitStatus(parent, RunStatus.SUCCEEDED).resultJson())
                .isEqualTo("\"RETURNED_SINGLETON_OWNER " + owner + "\"");
    }

    @Test
    @DisplayName("S-CP-4: SIGNAL_OWNER without a signal name fails naming signalName, before anything is written")
    void signalOwnerRequiresASignalName() {
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatThrownBy(() -> order("k-x", "a", 0, policy(SingletonConflictPolicy.SIGNAL_OWNER)))
                .isInstanceOf(ConfigurationInvalidException.class)
                .hasMessageContaining("signalName");
        assertThatThrownBy(() -> order(
                        "k-x",
                        "a",
                        0,
                        TriggerOptions.builder().signalName("line").build()))
                .isInstanceOf(ConfigurationInvalidException.class)
                .hasMessageContaining("signalName");
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-CP-4: SIGNAL_OWNER creates the run when the key is free, and delivers the payload to a waiting,"
            + " running or parked owner, which consumes it")
    void signalOwnerStartsOrResumes() {
        for (RunStatus state : List.of(RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.WAITING)) {
            String key = "k-signal-" + state;
            if (state == RunStatus.RUNNING) {
                GATES.put(key, new CountDownLatch(1));
            }
            assertThat(order(key, "first", 1, signalOwner()).outcome())
                    .as("no owner: created")
                    .isEqualTo(TriggerOutcome.CREATED);
            UUID owner = runlane.template()
                    .runs()
                    .findActive("policy.order", null, key)
                    .orElseThrow()
                    .id();
            if (state != RunStatus.QUEUED) {
                awaitStatus(owner, state);
            }
            TriggerResult result = order(key, "second-" + state, 0, signalOwner());

            assertThat(result.outcome()).isEqualTo(TriggerOutcome.SIGNALED_SINGLETON_OWNER);
            assertThat(result.created()).isFalse();
            assertThat(result.runId()).isEqualTo(owner);
            GATES.getOrDefault(key, new CountDownLatch(0)).countDown();
            if (state == RunStatus.QUEUED) {
                runlane.startWorker();
            }
            assertThat(awaitStatus(owner, RunStatus.SUCCEEDED).resultJson())
                    .isEqualTo("\"first,second-" + state + "\"");
        }
    }

    @Test
    @DisplayName("S-CP-4, S-SG-2: a repeated SIGNAL_OWNER trigger with one idempotency key delivers one signal")
    void repeatedSignalOwnerTriggerDeliversOnce() {
        UUID owner = owner("k-dedup", RunStatus.QUEUED);
        TriggerOptions options = TriggerOptions.builder()
                .onSingletonConflict(SingletonConflictPolicy.SIGNAL_OWNER)
                .signalName("line")
                .idempotencyKey("request-7")
                .build();

        assertThat(order("k-dedup", "x", 0, options).runId()).isEqualTo(owner);
        assertThat(order("k-dedup", "x", 0, options).runId()).isEqualTo(owner);

        assertThat(runlane.template().runs().signals(owner)).hasSize(1);
        assertThat(runlane.hasKeyRow("policy.order", "request-7")).isFalse();
    }

    @Test
    @DisplayName("S-CP-4, S-SG-3: 32 concurrent SIGNAL_OWNER triggers on a free key create one run and deliver the"
            + " other 31 payloads to it, none lost and none twice")
    void signalOwnerStorm() {
        List<Concurrently.Outcome<TriggerResult>> outcomes =
                Concurrently.run(32, i -> () -> order("k-storm", "item-" + i, 31, signalOwner()));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        List<TriggerResult> results =
                outcomes.stream().map(Concurrently.Outcome::value).toList();
        assertThat(results).filteredOn(TriggerResult::created).hasSize(1);
        UUID owner = results.stream()
                .filter(TriggerResult::created)
                .findFirst()
                .orElseThrow()
                .runId();
        assertThat(results)
                .filteredOn(result -> result.outcome() == TriggerOutcome.SIGNALED_SINGLETON_OWNER)
                .hasSize(31)
                .allSatisfy(result -> assertThat(result.runId()).isEqualTo(owner));
        assertThat(runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".runs", Long.class))
                .isEqualTo(1);

        runlane.startWorker();
        String items = awaitStatus(owner, RunStatus.SUCCEEDED).resultJson().replace("\"", "");
        List<String> delivered = List.of(items.split(","));
        assertThat(delivered).hasSize(32).doesNotHaveDuplicates().doesNotContain("timeout");
        assertThat(runlane.template().runs().signals(owner))
                .hasSize(31)
                .extracting(RunSignal::consumedAt)
                .doesNotContainNull();
    }

    @Test
    @DisplayName("S-CP-5, S-TR-5, S-TR-6: a batch mixing policies answers each item in input order")
    void batchMixingPolicies() {
        UUID returned = owner("k-b1", RunStatus.QUEUED);
        UUID signalled = order("k-b2", "owner", 1, TriggerOptions.none()).runId();

        List<TriggerResult> results = runlane.template()
                .triggerAll(List.of(
                        TriggerRequest.of("policy.order", new Order.Payload("k-b0", "new", 0)),
                        TriggerRequest.of(
                                "policy.order",
                                new Order.Payload("k-b1", "dup", 0),
                                policy(SingletonConflictPolicy.RETURN_OWNER)),
                        TriggerRequest.of("policy.order", new Order.Payload("k-b2", "line", 0), signalOwner())));

        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsExactly(
                        TriggerOutcome.CREATED,
                        TriggerOutcome.RETURNED_SINGLETON_OWNER,
                        TriggerOutcome.SIGNALED_SINGLETON_OWNER);
        assertThat(results.get(1).runId()).isEqualTo(returned);
        assertThat(results.get(2).runId()).isEqualTo(signalled);
        assertThat(runlane.template().runs().signals(signalled)).hasSize(1);
    }

    @Test
    @DisplayName("S-CP-5, S-TR-6: concurrent batches signalling the same owners in different orders never deadlock")
    void concurrentBatchesDoNotDeadlock() {
        List<String> keys = List.of("k-c1", "k-c2", "k-c3", "k-c4");
        List<UUID> owners = keys.stream()
                .map(key -> order(key, "owner", 0, TriggerOptions.none()).runId())
                .toList();

        List<Concurrently.Outcome<List<TriggerResult>>> outcomes = Concurrently.run(16, i -> () -> {
            List<String> shuffled = new ArrayList<>(keys);
            Collections.shuffle(shuffled);
            List<TriggerRequest> requests = new ArrayList<>();
            for (String key : shuffled) {
                requests.add(TriggerRequest.of(
                        "policy.order",
                        new Order.Payload(key, "from-" + i, 0),
                        TriggerOptions.builder()
                                .onSingletonConflict(SingletonConflictPolicy.SIGNAL_OWNER)
                                .signalName("line")
                                .idempotencyKey("batch-" + i + "-" + key)
                                .build()));
            }
            return runlane.template().triggerAll(requests);
        });

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        for (UUID owner : owners) {
            assertThat(runlane.template().runs().signals(owner)).hasSize(16);
        }
    }

    @Test
    @DisplayName("S-CP-5: a rerun that passes a held singleton key follows its policy")
    void rerunFollowsThePolicy() {
        UUID source = order("k-rerun-source", "a", 0, TriggerOptions.none()).runId();
        runlane.template().runs().cancel(source, "test");
        UUID owner = owner("k-rerun", RunStatus.QUEUED);

        Run rerun = runlane.template()
                .runs()
                .rerun(
                        source,
                        TriggerOptions.builder()
                                .singletonKey("k-rerun")
                                .onSingletonConflict(SingletonConflictPolicy.RETURN_OWNER)
                                .build());

        assertThat(rerun.id()).isEqualTo(owner);
    }
}

package io.runlane.debounce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.DebounceMode;
import io.runlane.InvalidKeyException;
import io.runlane.PayloadValidationException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-DB-1..6: triggers of one debounce key fold into one pending run, from many threads and two instances with pools
 * of their own, racing the claim, in caller transactions and batches, after idempotency keys; bad input writes
 * nothing.
 */
@RunlaneDatabaseTest
class DebounceIntegrationTests {

    /** A payload: the debounce key and a sequence number telling the triggers apart. */
    public record Payload(String key, @PositiveOrZero int seq) {}

    /** The payloads the handlers saw, by run id. */
    static final Map<UUID, Payload> EXECUTED = new ConcurrentHashMap<>();

    @Task(id = "debounce.latest", debounce = "1h")
    public static class Latest implements TaskHandler<Payload> {

        @Override
        public @Nullable String debounceKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED.put(context.runId(), payload);
        }
    }

    @Task(id = "debounce.first", debounce = "1h", debounceMode = DebounceMode.FIRST)
    public static class First implements TaskHandler<Payload> {

        @Override
        public @Nullable String debounceKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED.put(context.runId(), payload);
        }
    }

    @Task(id = "debounce.capped", debounce = "300ms", debounceMaxWait = "1s")
    public static class Capped implements TaskHandler<Payload> {

        @Override
        public @Nullable String debounceKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED.put(context.runId(), payload);
        }
    }

    /** No declared debounce: the options give key and period. */
    @Task(id = "debounce.plain")
    public static class Plain implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED.put(context.runId(), payload);
        }
    }

    /** Debounced per call, rate-limited per payload key: its pending runs count against their key's limit. */
    @Task(id = "debounce.limited", rateLimit = 100_000, rateLimitPeriod = "1h")
    public static class Limited implements TaskHandler<Payload> {

        @Override
        public @Nullable String rateLimitKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTED.put(context.runId(), payload);
        }
    }

    @Pool(size = 40)
    private HikariDataSource firstPool;

    @Pool(size = 40)
    private HikariDataSource secondPool;

    private final List<TestRunlane> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        instances.forEach(TestRunlane::stop);
        EXECUTED.clear();
    }

    private TestRunlane start(HikariDataSource pool, String schema, int slots) {
        TestRunlane runlane = TestRunlane.withExecution(
                pool,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults().withWorker(slots, Duration.ofMillis(20)),
                EngineListener.NONE,
                new Latest(),
                new First(),
                new Capped(),
                new Plain(),
                new Limited());
        instances.add(runlane);
        return runlane;
    }

    private static TriggerResult trigger(TestRunlane runlane, String task, String key, int seq) {
        return runlane.template().trigger(task, new Payload(key, seq), TriggerOptions.none());
    }

    private static TriggerResult trigger(TestRunlane runlane, String key, int seq, TriggerOptions options) {
        return runlane.template().trigger("debounce.plain", new Payload(key, seq), options);
    }

    private static Payload payload(Run run) {
        String json = run.payloadJson();
        int seq = Integer.parseInt(json.replaceAll(".*\"seq\"\\s*:\\s*(\\d+).*", "$1"));
        String key = json.replaceAll(".*\"key\"\\s*:\\s*\"([^\"]*)\".*", "$1");
        return new Payload(key, seq);
    }

    private static long count(TestRunlane runlane, String sql, Object... args) {
        return runlane.jdbc().queryForObject(sql.replace("{schema}", runlane.schema()), Long.class, args);
    }

    private static int folds(TestRunlane runlane, UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT debounce_folds FROM " + runlane.schema() + ".runs WHERE id = ?", Integer.class, runId);
    }

    private static long debouncedEvents(TestRunlane runlane, UUID runId) {
        return count(
                runlane, "SELECT count(*) FROM {schema}.run_events WHERE run_id = ? AND type = 'DEBOUNCED'", runId);
    }

    private static long runsOfKey(TestRunlane runlane, String key) {
        return count(runlane, "SELECT count(*) FROM {schema}.runs WHERE debounce_key = ?", key);
    }

    @Test
    @DisplayName("S-DB-1, S-DB-2, S-DB-4: 32 threads on each of two instances fold one key into one run with the last"
            + " fold's payload")
    void burstFoldsIntoOneRunWithTheLatestPayload(@FreshSchema("debounce_burst") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        TestRunlane two = start(secondPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        int perThread = 10;
        AtomicInteger seqs = new AtomicInteger();

        List<Outcome<List<TriggerResult>>> outcomes = Concurrently.run(64, i -> () -> {
            List<TriggerResult> results = new ArrayList<>();
            for (int n = 0; n < perThread; n++) {
                results.add(trigger(i % 2 == 0 ? one : two, "debounce.latest", key, seqs.getAndIncrement()));
            }
            return results;
        });

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        List<TriggerResult> results =
                outcomes.stream().flatMap(outcome -> outcome.value().stream()).toList();
        assertThat(results).hasSize(64 * perThread);
        assertThat(results).filteredOn(TriggerResult::created).hasSize(1);
        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsOnly(TriggerOutcome.CREATED, TriggerOutcome.DEBOUNCED);
        UUID runId = results.get(0).runId();
        assertThat(results).extracting(TriggerResult::runId).containsOnly(runId);
        assertThat(runsOfKey(one, key)).isOne();
        assertThat(folds(one, runId)).isEqualTo(64 * perThread - 1);
        assertThat(debouncedEvents(one, runId)).isEqualTo(64 * perThread - 1);

        // The folds were serialised: the last DEBOUNCED event is the last fold, and the stored payload is its
        // trigger's.
        Instant lastFold = one.jdbc()
                .queryForObject(
                        "SELECT created_at FROM " + schema + ".run_events WHERE run_id = ? AND type = 'DEBOUNCED'"
                                + " ORDER BY seq DESC LIMIT 1",
                        java.time.OffsetDateTime.class,
                        runId)
                .toInstant();
        Set<Integer> lastFolders = results.stream()
                .filter(result -> result.outcome() == TriggerOutcome.DEBOUNCED)
                .filter(result -> result.run().updatedAt().equals(lastFold))
                .map(result -> payload(result.run()).seq())
                .collect(Collectors.toSet());
        Run stored = one.run(runId);
        assertThat(lastFolders).contains(payload(stored).seq());
        assertThat(stored.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(stored.debounceKey()).isEqualTo(key);
        // Each fold answered with the run as it left it: its own payload (LATEST).
        assertThat(results)
                .filteredOn(result -> result.outcome() == TriggerOutcome.DEBOUNCED)
                .allSatisfy(result -> assertThat(result.run().payloadJson()).contains("\"seq\":"));
    }

    @Test
    @DisplayName(
            "S-DB-4, S-DB-5: triggers with idempotency keys, singleton keys and none, from two instances, fold one key"
                    + " into one run")
    void keyedAndUnkeyedTriggersFoldIntoOneRun(@FreshSchema("debounce_keyed_burst") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        TestRunlane two = start(secondPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        String singleton = "s-" + UUID.randomUUID();

        List<Outcome<List<TriggerResult>>> outcomes = Concurrently.run(32, i -> () -> {
            List<TriggerResult> results = new ArrayList<>();
            for (int n = 0; n < 5; n++) {
                TriggerOptions.Builder options =
                        TriggerOptions.builder().debounceKey(key).debounce(Duration.ofHours(1));
                switch ((i + n) % 3) {
                    case 0 -> options.idempotencyKey("i-" + i + "-" + n);
                    case 1 -> options.singletonKey(singleton);
                    default -> {}
                }
                results.add(trigger(i % 2 == 0 ? one : two, key, i * 5 + n, options.build()));
            }
            return results;
        });

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        List<TriggerResult> results =
                outcomes.stream().flatMap(outcome -> outcome.value().stream()).toList();
        assertThat(results).filteredOn(TriggerResult::created).hasSize(1);
        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsOnly(TriggerOutcome.CREATED, TriggerOutcome.DEBOUNCED);
        UUID runId = results.get(0).runId();
        assertThat(results).extracting(TriggerResult::runId).containsOnly(runId);
        assertThat(runsOfKey(one, key)).isOne();
        assertThat(folds(one, runId)).isEqualTo(32 * 5 - 1);
        assertThat(debouncedEvents(one, runId)).isEqualTo(32 * 5 - 1);
    }

    @Test
    @DisplayName("S-DB-6: concurrent batches whose keys come in crossing orders fold without deadlocks")
    void crossedBatchesFoldWithoutDeadlocks(@FreshSchema("debounce_crossed") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        TestRunlane two = start(secondPool, schema, 1);
        List<String> keys = List.of("a-" + UUID.randomUUID(), "b-" + UUID.randomUUID(), "c-" + UUID.randomUUID());

        List<Outcome<List<TriggerResult>>> outcomes = Concurrently.run(16, i -> () -> {
            List<TriggerResult> results = new ArrayList<>();
            for (int n = 0; n < 10; n++) {
                List<TriggerRequest> batch = new ArrayList<>();
                for (int k = 0; k < keys.size(); k++) {
                    String key = keys.get(i % 2 == 0 ? k : keys.size() - 1 - k);
                    batch.add(TriggerRequest.of("debounce.latest", new Payload(key, i * 100 + n)));
                }
                results.addAll((i % 2 == 0 ? one : two).template().triggerAll(batch));
            }
            return results;
        });

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        List<TriggerResult> results =
                outcomes.stream().flatMap(outcome -> outcome.value().stream()).toList();
        assertThat(results).filteredOn(TriggerResult::created).hasSize(keys.size());
        for (String key : keys) {
            assertThat(runsOfKey(one, key)).isOne();
        }
    }

    @Test
    @DisplayName("S-DB-6, S-RT-4: batches and triggers whose debounce and rate-limit keys cross never deadlock: a batch"
            + " takes its debounce keys' locks, then its rate-limit keys', before it admits anything")
    void crossedDebounceAndRateLimitKeysNeverDeadlock(@FreshSchema("debounce_crossed_limits") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        TestRunlane two = start(secondPool, schema, 1);
        int rounds = 30;
        CyclicBarrier together = new CyclicBarrier(2);

        List<Outcome<Integer>> outcomes = Concurrently.run(2, caller -> () -> {
            for (int round = 0; round < rounds; round++) {
                String first = "first-" + round;
                String second = "second-" + round;
                together.await(10, TimeUnit.SECONDS);
                if (caller == 0) {
                    // D(first), R(r2), D(second), R(r1) when each item locks its own keys in turn
                    one.template().triggerAll(List.of(limited(first, "r2"), limited(second, "r1")));
                } else {
                    // D(second), then R(r2): the crossing order
                    two.template().triggerAll(List.of(limited(second, "r2")));
                }
            }
            return rounds;
        });

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        assertThat(count(one, "SELECT count(*) FROM {schema}.runs WHERE task_id = 'debounce.limited'"))
                .isEqualTo(2L * rounds);
    }

    private static TriggerRequest limited(String debounceKey, String rateLimitKey) {
        return TriggerRequest.of(
                "debounce.limited",
                new Payload(rateLimitKey, 0),
                TriggerOptions.builder()
                        .debounce(Duration.ofHours(1))
                        .debounceKey(debounceKey)
                        .build());
    }

    @Test
    @DisplayName("S-DB-2: in FIRST mode the pending run keeps the creating trigger's payload")
    void firstModeKeepsTheFirstPayload(@FreshSchema("debounce_first") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        TestRunlane two = start(secondPool, schema, 1);
        String key = "k-" + UUID.randomUUID();

        List<Outcome<TriggerResult>> outcomes =
                Concurrently.run(32, i -> () -> trigger(i % 2 == 0 ? one : two, "debounce.first", key, i));

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        TriggerResult created = outcomes.stream()
                .map(Outcome::value)
                .filter(TriggerResult::created)
                .findFirst()
                .orElseThrow();
        Run stored = one.run(created.runId());
        assertThat(payload(stored)).isEqualTo(payload(created.run()));
        assertThat(folds(one, stored.id())).isEqualTo(31);
        assertThat(outcomes)
                .allSatisfy(
                        outcome -> assertThat(payload(outcome.value().run())).isEqualTo(payload(created.run())));
    }

    @Test
    @DisplayName("S-DB-1: each fold moves the due time one period after it; a fold after the period is due starts anew")
    void foldsMoveTheDueTime(@FreshSchema("debounce_due") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        TriggerOptions options = TriggerOptions.builder()
                .debounceKey(key)
                .debounce(Duration.ofMinutes(10))
                .build();

        Run created = trigger(one, key, 0, options).run();
        Run folded = trigger(one, key, 1, options).run();

        assertThat(created.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(Duration.between(created.createdAt(), created.runAt())).isEqualTo(Duration.ofMinutes(10));
        assertThat(Duration.between(folded.updatedAt(), folded.runAt())).isEqualTo(Duration.ofMinutes(10));
        assertThat(folded.runAt()).isAfter(created.runAt());
        assertThat(one.jdbc()
                        .queryForObject(
                                "SELECT detail FROM " + schema + ".run_events WHERE run_id = ? AND type = 'DEBOUNCED'",
                                String.class,
                                created.id()))
                .startsWith("due at ")
                .endsWith("Z");
    }

    @Test
    @DisplayName("S-DB-1: under a continuous stream the run is due no later than the window's first trigger plus the"
            + " maximum wait, and starts")
    void maxWaitBoundsAContinuousStream(@FreshSchema("debounce_max_wait") String schema) throws Exception {
        TestRunlane one = start(firstPool, schema, 2).startWorker();
        TestRunlane two = start(secondPool, schema, 2);
        String key = "k-" + UUID.randomUUID();
        Instant end = Instant.now().plusSeconds(3);
        int seq = 0;
        while (Instant.now().isBefore(end)) {
            trigger(seq % 2 == 0 ? one : two, "debounce.capped", key, seq++);
            Thread.sleep(50);
        }

        List<Map<String, Object>> runs = one.jdbc()
                .queryForList(
                        "SELECT id, run_at - debounce_started_at AS wait, status FROM " + schema
                                + ".runs WHERE debounce_key = ? ORDER BY created_at",
                        key);
        // A 3 s stream with triggers every 50 ms and a period of 300 ms would never start a run without the bound.
        assertThat(runs.size()).isGreaterThanOrEqualTo(2);
        assertThat(count(
                        one,
                        "SELECT count(*) FROM {schema}.runs WHERE debounce_key = ?"
                                + " AND run_at > debounce_started_at + interval '1 second'",
                        key))
                .isZero();
        assertThat(EXECUTED).isNotEmpty();
    }

    @Test
    @DisplayName(
            "S-DB-3, S-DB-4: thousands of triggers racing a claiming worker: none lost, never two pending runs of a"
                    + " key, no fold after a claim")
    void triggersRacingTheClaimAreNeverLost(@FreshSchema("debounce_race") String schema) throws Exception {
        TestRunlane one = start(firstPool, schema, 4).startWorker();
        TestRunlane two = start(secondPool, schema, 4).startWorker();
        String key = "k-" + UUID.randomUUID();
        // Period 1 ms: every pending run is due at once, so the claims race the folds all the time.
        TriggerOptions options = TriggerOptions.builder()
                .debounceKey(key)
                .debounce(Duration.ofMillis(1))
                .build();
        AtomicBoolean racing = new AtomicBoolean(true);
        AtomicInteger mostPending = new AtomicInteger();
        Thread sampler = new Thread(() -> {
            while (racing.get()) {
                long pending = count(
                        one,
                        "SELECT count(*) FROM {schema}.runs WHERE debounce_key = ?"
                                + " AND status IN ('SCHEDULED', 'QUEUED') AND fencing_token = 0",
                        key);
                mostPending.accumulateAndGet((int) pending, Math::max);
                // Sample every few milliseconds: the race, not the sampler, should load the database.
                LockSupport.parkNanos(2_000_000);
            }
        });
        sampler.start();
        int perThread = 125;
        List<Outcome<List<TriggerResult>>> outcomes;
        try {
            outcomes = Concurrently.run(16, i -> () -> {
                List<TriggerResult> results = new ArrayList<>();
                for (int n = 0; n < perThread; n++) {
                    results.add(trigger(i % 2 == 0 ? one : two, key, i * perThread + n, options));
                }
                return results;
            });
        } finally {
            racing.set(false);
            sampler.join();
        }

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        List<TriggerResult> results =
                outcomes.stream().flatMap(outcome -> outcome.value().stream()).toList();
        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsOnly(TriggerOutcome.CREATED, TriggerOutcome.DEBOUNCED);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count(
                                one,
                                "SELECT count(*) FROM {schema}.runs WHERE debounce_key = ? AND status <> 'SUCCEEDED'",
                                key)
                        == 0);

        Map<UUID, Long> foldsAnswered = results.stream()
                .filter(result -> result.outcome() == TriggerOutcome.DEBOUNCED)
                .collect(Collectors.groupingBy(TriggerResult::runId, Collectors.counting()));
        Set<UUID> created = results.stream()
                .filter(TriggerResult::created)
                .map(TriggerResult::runId)
                .collect(Collectors.toSet());
        List<Map<String, Object>> runs = one.jdbc()
                .queryForList("SELECT id, debounce_folds FROM " + schema + ".runs WHERE debounce_key = ?", key);
        assertThat(runs).hasSize(created.size());
        assertThat(created).containsAll(foldsAnswered.keySet());
        Map<UUID, Integer> storedFolds = new HashMap<>();
        runs.forEach(row -> storedFolds.put((UUID) row.get("id"), (Integer) row.get("debounce_folds")));
        assertThat(storedFolds.keySet()).isEqualTo(created);
        long triggers = 0;
        for (Map.Entry<UUID, Integer> run : storedFolds.entrySet()) {
            assertThat(foldsAnswered.getOrDefault(run.getKey(), 0L))
                    .as("folds answered for run %s", run.getKey())
                    .isEqualTo(run.getValue().longValue());
            assertThat(debouncedEvents(one, run.getKey()))
                    .isEqualTo(run.getValue().longValue());
            triggers += 1 + run.getValue();
            // S-DB-3: the handler saw the payload stored, which no fold changed after the claim.
            assertThat(EXECUTED.get(run.getKey())).isEqualTo(payload(one.run(run.getKey())));
        }
        assertThat(triggers).isEqualTo(16L * perThread);
        assertThat(count(
                        one,
                        "SELECT count(*) FROM {schema}.run_events d JOIN {schema}.runs r ON r.id = d.run_id"
                                + " WHERE r.debounce_key = ? AND d.type = 'DEBOUNCED' AND d.seq > (SELECT min(c.seq)"
                                + " FROM {schema}.run_events c WHERE c.run_id = d.run_id AND c.type = 'CLAIMED')",
                        key))
                .as("folds after a claim")
                .isZero();
        assertThat(mostPending.get()).isLessThanOrEqualTo(1);
        assertThat(created.size()).isGreaterThan(1);
    }

    @Test
    @DisplayName("S-DB-4, S-TR-11: sessions defaulting to REPEATABLE READ fold and race the claim without a"
            + " serialisation failure")
    void repeatableReadSessionsFoldWithoutSerialisationFailures(@FreshSchema("debounce_repeatable") String schema) {
        HikariConfig config = new HikariConfig();
        String url = TestDatabase.jdbcUrl();
        config.setJdbcUrl(url + (url.contains("?") ? "&" : "?")
                + "options=-c%20default_transaction_isolation%3Drepeatable%5C%20read");
        config.setMaximumPoolSize(12);
        try (HikariDataSource repeatableRead = new HikariDataSource(config)) {
            TestRunlane one = start(repeatableRead, schema, 2).startWorker();
            String key = "k-" + UUID.randomUUID();
            TriggerOptions options = TriggerOptions.builder()
                    .debounceKey(key)
                    .debounce(Duration.ofMillis(1))
                    .build();
            TriggerOptions keyed = TriggerOptions.builder()
                    .debounceKey(key)
                    .debounce(Duration.ofMillis(1))
                    .singletonKey("s-" + UUID.randomUUID())
                    .onSingletonConflict(io.runlane.SingletonConflictPolicy.RETURN_OWNER)
                    .build();

            List<Outcome<Integer>> outcomes = Concurrently.run(8, i -> () -> {
                for (int n = 0; n < 100; n++) {
                    trigger(one, key, i * 100 + n, n % 4 == 0 ? keyed : options);
                }
                return 100;
            });

            assertThat(outcomes)
                    .allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> count(
                                    one,
                                    "SELECT count(*) FROM {schema}.runs WHERE debounce_key = ?"
                                            + " AND status <> 'SUCCEEDED'",
                                    key)
                            == 0);
            one.stop();
            instances.remove(one);
        }
    }

    @Test
    @DisplayName("S-DB-3: once the pending run is claimed, the next trigger creates a new pending run")
    void aClaimedRunEndsTheWindow(@FreshSchema("debounce_claimed") String schema) {
        TestRunlane one = start(firstPool, schema, 1).startWorker();
        String key = "k-" + UUID.randomUUID();
        TriggerOptions options = TriggerOptions.builder()
                .debounceKey(key)
                .debounce(Duration.ofMillis(1))
                .build();
        Run first = trigger(one, key, 1, options).run();
        await().atMost(Duration.ofSeconds(10)).until(() -> one.run(first.id()).status() == RunStatus.SUCCEEDED);

        TriggerResult next = trigger(one, key, 2, options);

        assertThat(next.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(next.runId()).isNotEqualTo(first.id());
        assertThat(payload(one.run(first.id())).seq()).isEqualTo(1);
    }

    @Test
    @DisplayName("S-DB-3: a pending run cancelled and resumed does not reopen its window next to the key's next pending"
            + " run")
    void aResumedRunIsNotPendingAgain(@FreshSchema("debounce_resumed") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        Run cancelled = trigger(one, "debounce.latest", key, 1).run();
        one.template().runs().cancel(cancelled.id(), "test");
        TriggerResult next = trigger(one, "debounce.latest", key, 2);
        assertThat(next.outcome()).isEqualTo(TriggerOutcome.CREATED);

        Run resumed = one.template().runs().resume(cancelled.id());

        assertThat(resumed.status()).isEqualTo(RunStatus.QUEUED);
        TriggerResult folded = trigger(one, "debounce.latest", key, 3);
        assertThat(folded.outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
        assertThat(folded.runId()).isEqualTo(next.runId());
        assertThat(payload(one.run(cancelled.id())).seq()).isEqualTo(1);
    }

    @Test
    @DisplayName("S-DB-1, S-OP-9: a rerun given a debounce key is debounced like a trigger with it; one without is not")
    void rerunsTakeTheDebounceOfTheirOptions(@FreshSchema("debounce_rerun") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        Run source = trigger(one, key, 1, TriggerOptions.none()).run();
        one.finish(source.id(), RunStatus.SUCCEEDED);
        TriggerOptions debounced = TriggerOptions.builder()
                .debounceKey(key)
                .debounce(Duration.ofHours(1))
                .build();

        Run pending = one.template().runs().rerun(source.id(), debounced);
        Run folded = one.template().runs().rerun(source.id(), debounced);
        Run plain = one.template().runs().rerun(source.id());

        assertThat(pending.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(pending.debounceKey()).isEqualTo(key);
        assertThat(folded.id()).isEqualTo(pending.id());
        assertThat(folds(one, pending.id())).isEqualTo(1);
        assertThat(runsOfKey(one, key)).isEqualTo(1);
        assertThat(plain.id()).isNotIn(source.id(), pending.id());
        assertThat(plain.debounceKey()).isNull();
        assertThat(plain.status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-DB-6, S-OP-9: a rerun whose options pair a debounce key with a delay fails naming delay, writing"
            + " nothing; one whose debounce key is not a valid key fails naming debounceKey")
    void rerunsRejectABadDebounceWritingNothing(@FreshSchema("debounce_rerun_bad") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        Run source = trigger(one, key, 1, TriggerOptions.none()).run();
        one.finish(source.id(), RunStatus.SUCCEEDED);
        long runs = count(one, "SELECT count(*) FROM {schema}.runs");
        long events = count(one, "SELECT count(*) FROM {schema}.run_events");

        assertField(
                () -> one.template()
                        .runs()
                        .rerun(
                                source.id(),
                                TriggerOptions.builder()
                                        .debounceKey(key)
                                        .debounce(Duration.ofHours(1))
                                        .delay(Duration.ofMinutes(1))
                                        .build()),
                "delay");
        assertThatThrownBy(() -> one.template()
                        .runs()
                        .rerun(
                                source.id(),
                                TriggerOptions.builder()
                                        .debounceKey(" ")
                                        .debounce(Duration.ofHours(1))
                                        .build()))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("debounceKey");

        assertThat(count(one, "SELECT count(*) FROM {schema}.runs")).isEqualTo(runs);
        assertThat(count(one, "SELECT count(*) FROM {schema}.run_events")).isEqualTo(events);
    }

    @Test
    @DisplayName("S-DB-1: a fold in a caller's transaction that rolls back changes nothing; one that commits folds")
    void aRolledBackFoldChangesNothing(@FreshSchema("debounce_rollback") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(firstPool));
        String key = "k-" + UUID.randomUUID();
        Run created = trigger(one, "debounce.latest", key, 1).run();
        long events = count(one, "SELECT count(*) FROM {schema}.run_events WHERE run_id = ?", created.id());

        transactions.executeWithoutResult(status -> {
            TriggerResult folded = trigger(one, "debounce.latest", key, 2);
            assertThat(folded.outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
            status.setRollbackOnly();
        });
        Run after = one.run(created.id());
        assertThat(payload(after).seq()).isEqualTo(1);
        assertThat(after.runAt()).isEqualTo(created.runAt());
        assertThat(folds(one, created.id())).isZero();
        assertThat(count(one, "SELECT count(*) FROM {schema}.run_events WHERE run_id = ?", created.id()))
                .isEqualTo(events);

        String other = "k-" + UUID.randomUUID();
        transactions.executeWithoutResult(status -> {
            trigger(one, "debounce.latest", other, 1);
            status.setRollbackOnly();
        });
        assertThat(runsOfKey(one, other)).isZero();

        transactions.executeWithoutResult(status -> trigger(one, "debounce.latest", key, 3));
        assertThat(payload(one.run(created.id())).seq()).isEqualTo(3);
        assertThat(folds(one, created.id())).isOne();
    }

    @Test
    @DisplayName("S-DB-6: a batch folds its items in order, next to items that do not debounce")
    void batchesFoldInOrder(@FreshSchema("debounce_batch") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String a = "a-" + UUID.randomUUID();
        String b = "b-" + UUID.randomUUID();

        List<TriggerResult> results = one.template()
                .triggerAll(List.of(
                        TriggerRequest.of("debounce.latest", new Payload(b, 1)),
                        TriggerRequest.of("debounce.latest", new Payload(a, 2)),
                        TriggerRequest.of("debounce.plain", new Payload("plain", 3)),
                        TriggerRequest.of("debounce.latest", new Payload(a, 4)),
                        TriggerRequest.of("debounce.latest", new Payload(b, 5)),
                        TriggerRequest.of("debounce.latest", new Payload(a, 6))));

        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsExactly(
                        TriggerOutcome.CREATED,
                        TriggerOutcome.CREATED,
                        TriggerOutcome.CREATED,
                        TriggerOutcome.DEBOUNCED,
                        TriggerOutcome.DEBOUNCED,
                        TriggerOutcome.DEBOUNCED);
        assertThat(payload(one.run(results.get(1).runId())).seq()).isEqualTo(6);
        assertThat(payload(one.run(results.get(0).runId())).seq()).isEqualTo(5);
        assertThat(folds(one, results.get(1).runId())).isEqualTo(2);
        assertThat(results.get(5).runId()).isEqualTo(results.get(1).runId());
        assertThat(one.run(results.get(2).runId()).debounceKey()).isNull();
    }

    @Test
    @DisplayName("S-DB-5: the idempotency key is looked up first; a folded trigger's keys are not recorded; the"
            + " singleton conflict is decided when the pending run is created")
    void idempotencyKeysFirstAndSingletonAtCreation(@FreshSchema("debounce_keys") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        TriggerOptions.Builder options =
                TriggerOptions.builder().debounceKey(key).debounce(Duration.ofHours(1));

        TriggerResult created =
                trigger(one, key, 1, options.idempotencyKey("i1").build());
        TriggerResult duplicate =
                trigger(one, key, 2, options.idempotencyKey("i1").build());
        TriggerResult folded = trigger(one, key, 3, options.idempotencyKey("i2").build());
        TriggerResult foldedAgain =
                trigger(one, key, 4, options.idempotencyKey("i2").build());

        assertThat(created.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(folded.outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
        assertThat(foldedAgain.outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
        assertThat(folded.runId()).isEqualTo(created.runId());
        Run stored = one.run(created.runId());
        assertThat(stored.idempotencyKey()).isEqualTo("i1");
        assertThat(payload(stored).seq()).isEqualTo(4);
        assertThat(folds(one, created.runId())).isEqualTo(2);

        // A singleton key held by another active run: the fold is not refused, only the creation is.
        String singleton = "s-" + UUID.randomUUID();
        Run holder = one.template()
                .trigger(
                        "debounce.plain",
                        new Payload("holder", 0),
                        TriggerOptions.builder().singletonKey(singleton).build())
                .run();
        TriggerOptions withSingleton = TriggerOptions.builder()
                .debounceKey(key)
                .debounce(Duration.ofHours(1))
                .singletonKey(singleton)
                .build();
        assertThat(trigger(one, key, 5, withSingleton).outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
        String fresh = "k-" + UUID.randomUUID();
        long runs = count(one, "SELECT count(*) FROM {schema}.runs");
        assertThatThrownBy(() -> trigger(
                        one,
                        fresh,
                        6,
                        TriggerOptions.builder()
                                .debounceKey(fresh)
                                .debounce(Duration.ofHours(1))
                                .singletonKey(singleton)
                                .build()))
                .isInstanceOf(SingletonConflictException.class)
                .hasMessageContaining(holder.id().toString());
        assertThat(count(one, "SELECT count(*) FROM {schema}.runs")).isEqualTo(runs);
    }

    @Test
    @DisplayName("S-DB-1, S-DB-2, S-DB-6: bad debounce input fails typed and writes nothing")
    void badInputWritesNothing(@FreshSchema("debounce_bad_input") String schema) {
        TestRunlane one = start(firstPool, schema, 1);
        String key = "k-" + UUID.randomUUID();
        Run pending = trigger(one, "debounce.latest", key, 1).run();
        long runs = count(one, "SELECT count(*) FROM {schema}.runs");
        long events = count(one, "SELECT count(*) FROM {schema}.run_events");

        assertField(
                () -> trigger(
                        one,
                        key,
                        0,
                        TriggerOptions.builder()
                                .debounceKey(key)
                                .debounce(Duration.ZERO)
                                .build()),
                "debounce");
        assertField(
                () -> trigger(
                        one,
                        key,
                        0,
                        TriggerOptions.builder()
                                .debounceKey(key)
                                .debounce(Duration.ofDays(31))
                                .build()),
                "debounce");
        assertField(
                () -> trigger(
                        one,
                        key,
                        0,
                        TriggerOptions.builder()
                                .debounceKey(key)
                                .debounce(Duration.ofMinutes(2))
                                .debounceMaxWait(Duration.ofMinutes(1))
                                .build()),
                "debounceMaxWait");
        assertField(
                () -> trigger(
                        one,
                        key,
                        0,
                        TriggerOptions.builder()
                                .debounceKey(key)
                                .debounce(Duration.ofMinutes(1))
                                .debounceMaxWait(Duration.ofDays(366))
                                .build()),
                "debounceMaxWait");
        assertField(
                () -> one.template()
                        .trigger(
                                "debounce.latest",
                                new Payload(key, 0),
                                TriggerOptions.builder()
                                        .delay(Duration.ofSeconds(1))
                                        .build()),
                "delay");
        assertField(
                () -> one.template()
                        .trigger(
                                "debounce.latest",
                                new Payload(key, 0),
                                TriggerOptions.builder().runAt(Instant.now()).build()),
                "runAt");
        assertField(
                () -> trigger(
                        one, key, 0, TriggerOptions.builder().debounceKey(key).build()),
                "debounce");
        assertField(
                () -> trigger(
                        one,
                        key,
                        0,
                        TriggerOptions.builder().debounce(Duration.ofSeconds(1)).build()),
                "debounceKey");
        assertThatThrownBy(() -> trigger(
                        one,
                        key,
                        0,
                        TriggerOptions.builder()
                                .debounceKey(" ")
                                .debounce(Duration.ofSeconds(1))
                                .build()))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("debounceKey");
        assertThatThrownBy(() -> one.template().trigger("debounce.latest", new Payload(key, -1), TriggerOptions.none()))
                .isInstanceOf(PayloadValidationException.class);
        assertThatThrownBy(() -> one.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("debounce.latest", new Payload(key, 2)),
                                TriggerRequest.of(
                                        "debounce.latest",
                                        new Payload(key, 3),
                                        TriggerOptions.builder()
                                                .delay(Duration.ofSeconds(1))
                                                .build()))))
                .isInstanceOf(ConfigurationInvalidException.class);

        assertThat(count(one, "SELECT count(*) FROM {schema}.runs")).isEqualTo(runs);
        assertThat(count(one, "SELECT count(*) FROM {schema}.run_events")).isEqualTo(events);
        assertThat(payload(one.run(pending.id())).seq()).isEqualTo(1);
        assertThat(folds(one, pending.id())).isZero();
    }

    private static void assertField(Runnable trigger, String field) {
        assertThatThrownBy(trigger::run)
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo(field));
    }
}

package io.runlane.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunStatus;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-IK-7: exactly one run per idempotency key under any concurrency, from threads, connection pools standing in for
 * application instances, and transactions that roll back. Nobody sees a deadlock or a unique-constraint error.
 */
@RunlaneDatabaseTest
class IdempotencyConcurrencyIntegrationTests {

    @Pool(size = 64)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("ik_concurrency") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static void assertOneCreatedAndTheSameRunForAll(List<Outcome<TriggerResult>> outcomes) {
        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        List<TriggerResult> results = outcomes.stream().map(Outcome::value).toList();
        assertThat(results).filteredOn(TriggerResult::created).hasSize(1);
        assertThat(results)
                .extracting(TriggerResult::runId)
                .containsOnly(results.get(0).runId());
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE idempotency_key = ?",
                                Long.class,
                                results.get(0).run().idempotencyKey()))
                .isOne();
    }

    @RepeatedTest(5)
    @DisplayName("S-IK-7: 64 threads triggering one key get one CREATED and the same run id, with no exception")
    void sixtyFourThreadsTriggeringOneKeyCreateOneRun() {
        String customer = "c-" + UUID.randomUUID();

        List<Outcome<TriggerResult>> outcomes = Concurrently.run(
                64,
                i -> () -> runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer)));

        assertOneCreatedAndTheSameRunForAll(outcomes);
    }

    @RepeatedTest(3)
    @DisplayName("S-IK-7: the same across four data sources acting as four application instances")
    void severalDataSourcesTriggeringOneKeyCreateOneRun() {
        List<HikariDataSource> pools = IntStream.range(0, 4)
                .mapToObj(i -> TestDatabase.newDataSource(16))
                .toList();
        try {
            List<TestRunlane> instances =
                    pools.stream().map(runlane::instanceOn).toList();
            String orderId = "o-" + UUID.randomUUID();

            List<Outcome<TriggerResult>> outcomes = Concurrently.run(
                    64,
                    i -> () -> instances
                            .get(i % 4)
                            .template()
                            .trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 1)));

            assertOneCreatedAndTheSameRunForAll(outcomes);
        } finally {
            pools.forEach(HikariDataSource::close);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"customers.refresh", "orders.confirm"})
    @DisplayName("S-IK-7: when the first inserter rolls back, a waiting caller creates the run instead")
    void waiterCreatesTheRunWhenTheFirstInserterRollsBack(String taskId) throws Exception {
        String id = "id-" + UUID.randomUUID();
        Object payload =
                taskId.equals("orders.confirm") ? new ConfirmOrder.Payload(id, 1) : new RefreshCustomer.Payload(id);
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch rollBack = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(9);
        try {
            CompletableFuture<UUID> first = CompletableFuture.supplyAsync(
                    () -> transactions.execute(status -> {
                        TriggerResult result = runlane.template().trigger(taskId, payload);
                        assertThat(result.created()).isTrue();
                        inserted.countDown();
                        await().until(() -> rollBack.await(0, TimeUnit.SECONDS));
                        status.setRollbackOnly();
                        return result.runId();
                    }),
                    executor);
            assertThat(inserted.await(30, TimeUnit.SECONDS)).isTrue();
            List<CompletableFuture<TriggerResult>> waiters = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                waiters.add(
                        CompletableFuture.supplyAsync(() -> runlane.template().trigger(taskId, payload), executor));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> blockedOnLocks() >= 8);

            rollBack.countDown();

            UUID rolledBack = first.get(30, TimeUnit.SECONDS);
            List<TriggerResult> results =
                    waiters.stream().map(CompletableFuture::join).toList();
            assertThat(results).filteredOn(TriggerResult::created).hasSize(1);
            assertThat(results)
                    .extracting(TriggerResult::runId)
                    .containsOnly(results.get(0).runId());
            assertThat(results.get(0).runId()).isNotEqualTo(rolledBack);
            assertThat(runlane.template().runs().get(rolledBack)).isEmpty();
        } finally {
            rollBack.countDown();
            executor.shutdownNow();
        }
    }

    private static long blockedOnLocks() {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
                        Long.class);
    }

    @Test
    @DisplayName(
            "S-TR-5, S-TR-6, S-IK-7: concurrent batches sharing keys in different orders resolve to one owner per key")
    void concurrentBatchesSharingKeysResolveToOneOwnerPerKey() {
        List<String> orders =
                IntStream.range(0, 20).mapToObj(i -> "o-" + UUID.randomUUID()).toList();

        List<Outcome<List<TriggerResult>>> outcomes = Concurrently.run(8, caller -> () -> {
            List<String> shuffled = new ArrayList<>(orders);
            Collections.shuffle(shuffled, new Random(caller));
            return runlane.template()
                    .triggerAll(shuffled.stream()
                            .map(order -> TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(order, 1)))
                            .toList());
        });

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        for (String order : orders) {
            List<TriggerResult> forOrder = outcomes.stream()
                    .flatMap(outcome -> outcome.value().stream())
                    .filter(result -> result.run().idempotencyKey().equals("order." + order))
                    .toList();
            assertThat(forOrder).hasSize(8);
            assertThat(forOrder).filteredOn(TriggerResult::created).hasSize(1);
            assertThat(forOrder)
                    .extracting(TriggerResult::runId)
                    .containsOnly(forOrder.get(0).runId());
        }
    }

    @Test
    @DisplayName(
            "S-IK-2..5, S-IK-7: a seeded storm of triggers and terminal transitions never leaves two active owners")
    void stormOfTriggersAndTransitionsKeepsOneActiveOwnerPerKey() {
        long seed = 20261129L;
        List<String> customers =
                IntStream.range(0, 6).mapToObj(i -> "storm-" + seed + "-" + i).toList();
        RunStatus[] endings = {RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED};

        List<Outcome<Integer>> outcomes = Concurrently.run(16, caller -> () -> {
            Random random = new Random(seed + caller);
            int created = 0;
            for (int i = 0; i < 60; i++) {
                String customer = customers.get(random.nextInt(customers.size()));
                TriggerResult result =
                        runlane.template().trigger("customers.refresh", new RefreshCustomer.Payload(customer));
                created += result.created() ? 1 : 0;
                if (random.nextInt(4) == 0) {
                    runlane.engine()
                            .transitions()
                            .finish(result.runId(), endings[random.nextInt(3)], null, "storm", null);
                }
                if (random.nextInt(6) == 0) {
                    runlane.age(result.runId(), Duration.ofDays(2));
                }
            }
            return created;
        });

        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        assertThat(runlane.jdbc().queryForObject("""
                SELECT count(*) FROM (
                    SELECT idempotency_key FROM %s.runs
                    WHERE task_id = 'customers.refresh' AND idempotency_key LIKE 'refresh.storm-%%' AND finished_at IS NULL
                    GROUP BY idempotency_key HAVING count(*) > 1) doubled
                """.formatted(runlane.schema()), Long.class))
                .as("keys with two active owners")
                .isZero();
        assertThat(runlane.jdbc().queryForObject("""
                SELECT count(*) FROM (
                    SELECT idempotency_key FROM %s.runs
                    WHERE task_id = 'customers.refresh' AND idempotency_key LIKE 'refresh.storm-%%'
                      AND (finished_at IS NULL OR finished_at + idempotency_key_ttl_ms * interval '1 millisecond' > now())
                      AND NOT idempotency_key_released AND status <> 'FAILED'
                      AND (finished_at IS NULL OR idempotency_key_ttl_ms > 0)
                    GROUP BY idempotency_key HAVING count(*) > 1) doubled
                """.formatted(runlane.schema()), Long.class))
                .as("keys with two owners, active or retained (S-IK-1)")
                .isZero();
        int created = outcomes.stream().mapToInt(Outcome::value).sum();
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema()
                                        + ".runs WHERE idempotency_key LIKE 'refresh.storm-%'",
                                Integer.class))
                .isEqualTo(created);
    }
}

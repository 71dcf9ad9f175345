package io.runlane.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.TriggerResult;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Group commit (S-TR-13): concurrent triggers outside transactions share one statement and one commit, each caller
 * still gets its own answer once its run is committed, one run per key holds under the hammer, and a run that must
 * wait for another transaction's lock never holds up the runs grouped with it.
 */
@RunlaneDatabaseTest
class GroupCommitIntegrationTests {

    @Pool(size = 40)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("group_commit") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static TriggerResult confirm(String order) {
        return runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload(order, 1));
    }

    @Test
    @DisplayName(
            "S-TR-13, S-IK-1, S-IK-7: 16 threads triggering 2,000 keys at random create one run per key, each caller"
                    + " gets its key's run, and concurrent runs share statements")
    void concurrentTriggersShareStatementsAndKeepOneRunPerKey() {
        String prefix = "g-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        long seed = 20261130L;

        List<Outcome<List<TriggerResult>>> outcomes = Concurrently.run(16, caller -> () -> {
            Random random = new Random(seed + caller);
            return random.ints(60, 0, 2000)
                    .mapToObj(key -> confirm(prefix + key))
                    .toList();
        });

        assertThat(outcomes).noneMatch(Outcome::failed);
        Map<String, List<TriggerResult>> byKey = outcomes.stream()
                .flatMap(outcome -> outcome.value().stream())
                .collect(Collectors.groupingBy(result -> result.run().idempotencyKey()));
        byKey.forEach((key, results) -> {
            assertThat(results).filteredOn(TriggerResult::created).as(key).hasSize(1);
            assertThat(results)
                    .extracting(TriggerResult::runId)
                    .as(key)
                    .containsOnly(results.get(0).runId());
        });
        Long shared = runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM (SELECT created_at FROM " + runlane.schema()
                                + ".runs WHERE idempotency_key LIKE ? GROUP BY created_at HAVING count(*) > 1) s",
                        Long.class,
                        "order." + prefix + "%");
        assertThat(shared)
                .as("runs created by one group statement share its statement timestamp")
                .isPositive();
    }

    @Test
    @DisplayName("S-TR-13: a trigger waiting for a key another transaction holds does not hold up other triggers")
    void aTriggerWaitingForALockDoesNotHoldUpOthers() throws Exception {
        String held = "held-" + UUID.randomUUID().toString().substring(0, 8);
        TransactionTemplate caller = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        CompletableFuture<Void> release = new CompletableFuture<>();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
        CompletableFuture<TriggerResult> holder = CompletableFuture.supplyAsync(
                () -> caller.execute(status -> {
                    TriggerResult result = confirm(held);
                    release.join();
                    return result;
                }),
                threads);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> holder.isCompletedExceptionally()
                        ? holder.join() != null
                        : runlane.jdbc()
                                        .queryForObject(
                                                "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'",
                                                Long.class)
                                > 0);
        List<CompletableFuture<TriggerResult>> waiters = java.util.stream.IntStream.range(0, 4)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> confirm(held), threads))
                .toList();
        CompletableFuture<List<Outcome<List<TriggerResult>>>> others = CompletableFuture.supplyAsync(
                () -> Concurrently.run(
                        12,
                        free -> () -> java.util.stream.IntStream.range(0, 20)
                                .mapToObj(i -> confirm(
                                        "free-" + UUID.randomUUID().toString().substring(0, 13)))
                                .toList()),
                threads);

        assertThat(others.get(60, TimeUnit.SECONDS))
                .as("triggers of free keys, grouped with the waiting ones at times, all return while the key is held")
                .allSatisfy(outcome -> assertThat(outcome.failed()).isFalse());
        assertThat(waiters).as("still waiting for the open transaction").noneMatch(CompletableFuture::isDone);
        release.complete(null);
        TriggerResult owner = holder.get(30, TimeUnit.SECONDS);
        for (CompletableFuture<TriggerResult> waiter : waiters) {
            TriggerResult duplicate = waiter.get(30, TimeUnit.SECONDS);
            assertThat(duplicate.created()).isFalse();
            assertThat(duplicate.runId()).isEqualTo(owner.runId());
        }
        threads.shutdown();
    }
}

package io.runlane.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-TR-6: concurrent batches never deadlock, even when their idempotency keys and singleton keys sort in opposite
 * orders, so that no one order of the items takes both key indexes in one order.
 */
@RunlaneDatabaseTest
class CrossedBatchKeysIntegrationTests {

    private static final int ITEMS = 400;

    /** Holds its singleton key; its handler never runs (no worker is started). */
    @Task(id = "crossed.sync", onSingletonConflict = SingletonConflictPolicy.RETURN_OWNER)
    public static class Sync implements TaskHandler<Sync.Payload> {

        public record Payload(String key) {}

        @Override
        public String singletonKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 16)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("crossed_batches") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new Sync());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    /**
     * Batch {@code caller} of a round: item {@code i} has idempotency key {@code <caller>-<i>}; its singleton key is
     * {@code <round>-s-<i>} for an odd caller and {@code <round>-s-<ITEMS - 1 - i>} for an even one, so that the two
     * kinds of batch sort their singleton keys in opposite orders.
     */
    private static List<TriggerRequest> batch(int round, int caller) {
        return IntStream.range(0, ITEMS)
                .mapToObj(i -> TriggerRequest.of(
                        "crossed.sync",
                        new Sync.Payload("%d-s-%04d".formatted(round, caller % 2 == 1 ? i : ITEMS - 1 - i)),
                        TriggerOptions.builder()
                                .idempotencyKey("%d-%d-%04d".formatted(round, caller, i))
                                .build()))
                .toList();
    }

    private void assertOneRunPerSingletonKey(int round, List<Concurrently.Outcome<List<TriggerResult>>> outcomes) {
        assertThat(outcomes.stream()
                        .filter(Concurrently.Outcome::failed)
                        .map(outcome -> NestedExceptionUtils.getMostSpecificCause(outcome.failure())
                                .getMessage()))
                .as("round %d", round)
                .isEmpty();
        List<TriggerResult> results =
                outcomes.stream().flatMap(outcome -> outcome.value().stream()).toList();
        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsOnly(TriggerOutcome.CREATED, TriggerOutcome.RETURNED_SINGLETON_OWNER);
        Map<String, List<UUID>> runsByKey = results.stream()
                .collect(Collectors.groupingBy(
                        result -> result.run().singletonKey(),
                        Collectors.mapping(TriggerResult::runId, Collectors.toList())));
        assertThat(runsByKey).hasSize(ITEMS);
        assertThat(runsByKey.values()).allSatisfy(runs -> assertThat(runs).containsOnly(runs.get(0)));
        assertThat(results).filteredOn(TriggerResult::created).hasSize(ITEMS);
    }

    @Test
    @DisplayName("S-TR-6: four concurrent RETURN_OWNER batches, two sorting their singleton keys against their"
            + " idempotency keys, never deadlock: every singleton key gets one run, round after round")
    void crossedBatchesNeverDeadlock() {
        for (int round = 0; round < 3; round++) {
            int current = round;
            assertOneRunPerSingletonKey(
                    round,
                    Concurrently.run(4, caller -> () -> runlane.template().triggerAll(batch(current, caller))));
        }
    }

    @Test
    @DisplayName("S-TR-6, S-TR-3: crossed batches inside callers' transactions never deadlock either, and each"
            + " caller's transaction commits")
    void crossedBatchesInCallersTransactionsNeverDeadlock() {
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        for (int round = 3; round < 5; round++) {
            int current = round;
            assertOneRunPerSingletonKey(
                    round,
                    Concurrently.run(
                            4,
                            caller -> () -> transactions.execute(
                                    status -> runlane.template().triggerAll(batch(current, caller)))));
        }
    }
}

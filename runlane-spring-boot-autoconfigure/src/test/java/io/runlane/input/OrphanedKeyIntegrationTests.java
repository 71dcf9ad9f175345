package io.runlane.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.IdempotencyKeyActiveException;
import io.runlane.RunStatus;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A key whose owner was deleted by hand is free: the run row is the key's claim, so the key goes with it and no
 * orphaned claim can block it (S-IK-13). These tests were written against a separate ownership table, where an orphan
 * was possible; they are kept to prove that deleting runs by hand still never blocks a key.
 */
@RunlaneDatabaseTest
class OrphanedKeyIntegrationTests {

    private static final String TASK = "orders.confirm";

    @Pool(size = 40)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("orphan") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static String newOrder() {
        return "o-" + UUID.randomUUID();
    }

    private static TriggerResult confirm(String order) {
        return runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload(order, 1));
    }

    /** Creates the key's owner and deletes its run by hand. */
    private static UUID orphan(String order, RunStatus finishedAs) {
        UUID runId = confirm(order).runId();
        if (finishedAs != null) {
            runlane.finish(runId, finishedAs);
        }
        runlane.jdbc().update("DELETE FROM " + runlane.schema() + ".run_events WHERE run_id = ?", runId);
        runlane.jdbc().update("DELETE FROM " + runlane.schema() + ".runs WHERE id = ?", runId);
        assertThat(runlane.hasKeyRow(TASK, "order." + order)).isFalse();
        return runId;
    }

    private static UUID keyOwner(String order) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT id FROM " + runlane.schema() + ".runs WHERE task_id = ? AND idempotency_key = ?"
                                + " AND NOT idempotency_key_released AND status <> 'FAILED'",
                        UUID.class,
                        TASK,
                        "order." + order);
    }

    @Test
    @DisplayName("Finding 15, S-IK-13: a trigger creates a run for a key whose active owner was deleted by hand")
    void triggerTakesOverAnOrphanedActiveKey() {
        String order = newOrder();
        UUID deleted = orphan(order, null);

        TriggerResult result = confirm(order);

        assertThat(result.created()).isTrue();
        assertThat(result.runId()).isNotEqualTo(deleted);
        assertThat(keyOwner(order)).isEqualTo(result.runId());
        assertThat(confirm(order).runId()).as("the new run owns the key").isEqualTo(result.runId());
    }

    @Test
    @DisplayName("Finding 15, S-IK-13: a trigger creates a run for a key whose retained owner was deleted by hand")
    void triggerTakesOverAnOrphanedRetainedKey() {
        String order = newOrder();
        orphan(order, RunStatus.SUCCEEDED);

        TriggerResult result = confirm(order);

        assertThat(result.created()).isTrue();
        assertThat(keyOwner(order)).isEqualTo(result.runId());
    }

    @Test
    @DisplayName("Finding 15, S-IK-13: a batch item creates a run for a key whose owner was deleted by hand")
    void batchTakesOverAnOrphanedKey() {
        String order = newOrder();
        orphan(order, null);

        List<TriggerResult> results = runlane.template()
                .triggerAll(List.of(
                        TriggerRequest.of(TASK, new ConfirmOrder.Payload(order, 1)),
                        TriggerRequest.of(TASK, new ConfirmOrder.Payload(newOrder(), 1))));

        assertThat(results).allMatch(TriggerResult::created);
        assertThat(keyOwner(order)).isEqualTo(results.get(0).runId());
    }

    @Test
    @DisplayName(
            "Finding 15, S-IK-13, S-IK-7: 32 concurrent triggers on a key whose owner was deleted create exactly one run")
    void concurrentTriggersOnAnOrphanedKeyCreateOneRun() {
        for (int round = 0; round < 3; round++) {
            String order = newOrder();
            orphan(order, null);
            long runsBefore = runlane.rowCounts().runs();

            List<Outcome<TriggerResult>> outcomes = Concurrently.run(32, caller -> () -> confirm(order));

            assertThat(outcomes).noneMatch(Outcome::failed);
            Set<UUID> runIds =
                    outcomes.stream().map(outcome -> outcome.value().runId()).collect(Collectors.toSet());
            assertThat(runIds).hasSize(1);
            assertThat(outcomes.stream().filter(outcome -> outcome.value().created()))
                    .hasSize(1);
            assertThat(runlane.rowCounts().runs()).isEqualTo(runsBefore + 1);
            assertThat(keyOwner(order)).isEqualTo(runIds.iterator().next());
        }
    }

    @Test
    @DisplayName("Finding 15, S-IK-13: a reset of a key whose owner was deleted by hand finds nothing to reset")
    void resetOfADeletedOwnersKey() {
        String order = newOrder();
        orphan(order, null);

        boolean reset = runlane.template().idempotencyKeys().reset(TASK, "order." + order);

        assertThat(reset).isFalse();
        assertThat(runlane.hasKeyRow(TASK, "order." + order)).isFalse();
        assertThat(confirm(order).created()).isTrue();
    }

    @Test
    @DisplayName("S-IK-8: a reset still refuses a key whose active owner exists")
    void resetStillRefusesAnActiveOwner() {
        String order = newOrder();
        UUID owner = confirm(order).runId();

        assertThatThrownBy(() -> runlane.template().idempotencyKeys().reset(TASK, "order." + order))
                .isInstanceOf(IdempotencyKeyActiveException.class)
                .hasMessageContaining(owner.toString());
    }
}

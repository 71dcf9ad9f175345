package io.runlane.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.IdempotencyKeyActiveException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.BuildReport;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Idempotency key ownership and retention (S-IK-1..6, S-IK-8, S-IK-10) against real PostgreSQL. */
@RunlaneDatabaseTest
class IdempotencyKeyIntegrationTests {

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("idempotency") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static TriggerResult refresh(String customerId) {
        return runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customerId));
    }

    private static TriggerResult order(String orderId, TriggerOptions options) {
        return runlane.template().trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 1), options);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("S-TR-1, S-IK-2: a repeated trigger returns the active owner and writes nothing")
    void repeatedTriggerReturnsTheActiveOwnerAndWritesNothing() {
        TriggerResult first = refresh(unique("c"));
        TestRunlane.RowCounts before = runlane.rowCounts();

        TriggerResult second = runlane.template()
                .trigger(
                        "customers.refresh",
                        new RefreshCustomer.Payload(first.run().idempotencyKey().substring(8)));

        assertThat(first.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(first.created()).isTrue();
        assertThat(second.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(second.created()).isFalse();
        assertThat(second.runId()).isEqualTo(first.runId());
        assertThat(second.run()).isEqualTo(first.run());
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-IK-1: the same key on another task or in another environment is unrelated")
    void keysAreScopedByEnvironmentAndTask() {
        String key = unique("shared");
        TriggerResult order =
                order("o", TriggerOptions.builder().idempotencyKey(key).build());
        TriggerResult report = runlane.template()
                .trigger(
                        "reports.build",
                        new BuildReport.Payload("r"),
                        TriggerOptions.builder().idempotencyKey(key).build());
        TestRunlane otherEnvironment = TestRunlane.start(
                dataSource, runlane.schema(), settings -> settings.withEnvironment("staging"), TestTasks.all());
        TriggerResult staged = otherEnvironment
                .template()
                .trigger(
                        "orders.confirm",
                        new ConfirmOrder.Payload("o", 1),
                        TriggerOptions.builder().idempotencyKey(key).build());

        assertThat(order.created()).isTrue();
        assertThat(report.created()).isTrue();
        assertThat(staged.created()).isTrue();
        assertThat(java.util.Set.of(order.runId(), report.runId(), staged.runId()))
                .hasSize(3);
        assertThat(otherEnvironment.template().runs().get(order.runId())).isEmpty();
        assertThat(runlane.template().runs().get(staged.runId())).isEmpty();
    }

    @Test
    @DisplayName("S-IK-2: an active owner is returned whatever its TTL and however old it is")
    void activeOwnerIsReturnedWhateverItsTtl() {
        String key = unique("tiny-ttl");
        TriggerOptions options = TriggerOptions.builder()
                .idempotencyKey(key)
                .idempotencyKeyTtl(IdempotencyKeyTtl.of(Duration.ofMillis(1)))
                .build();
        TriggerResult first = order("o", options);
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET created_at = created_at - interval '400 days'"
                                + " WHERE id = ?",
                        first.runId());

        TriggerResult second = order("o", options);

        assertThat(second.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(second.runId()).isEqualTo(first.runId());
    }

    @ParameterizedTest
    @EnumSource(
            value = RunStatus.class,
            names = {"SUCCEEDED", "CANCELLED"})
    @DisplayName("S-IK-3: a SUCCEEDED or CANCELLED owner is retained until finished_at + TTL, then released")
    void finishedOwnerIsRetainedUntilItsTtlPasses(RunStatus terminal) {
        String customer = unique("c");
        TriggerResult owner = refresh(customer);
        Run finished = runlane.finish(owner.runId(), terminal);

        assertThat(runlane.retainedUntil("customers.refresh", "refresh." + customer))
                .isEqualTo(finished.finishedAt().plus(Duration.ofHours(24)))
                .isEqualTo(finished.idempotencyRetainedUntil());
        TriggerResult retained = refresh(customer);
        assertThat(retained.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(retained.run().status()).isEqualTo(terminal);

        runlane.age(owner.runId(), Duration.ofHours(24).minusSeconds(5));
        assertThat(refresh(customer).runId()).as("just before the TTL ends").isEqualTo(owner.runId());

        runlane.age(owner.runId(), Duration.ofSeconds(5));
        TriggerResult afterTtl = refresh(customer);
        assertThat(afterTtl.outcome()).as("at the TTL's end").isEqualTo(TriggerOutcome.CREATED);
        assertThat(afterTtl.runId()).isNotEqualTo(owner.runId());
    }

    @Test
    @DisplayName("S-IK-4: a FAILED owner releases the key when it fails")
    void failedOwnerReleasesTheKey() {
        String customer = unique("c");
        TriggerResult owner = refresh(customer);

        runlane.finish(owner.runId(), RunStatus.FAILED);

        assertThat(runlane.hasKeyRow("customers.refresh", "refresh." + customer))
                .isFalse();
        assertThat(runlane.template().runs().findCurrent("customers.refresh", "refresh." + customer))
                .isEmpty();
        TriggerResult next = refresh(customer);
        assertThat(next.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(next.runId()).isNotEqualTo(owner.runId());
    }

    @ParameterizedTest
    @EnumSource(
            value = RunStatus.class,
            names = {"SUCCEEDED", "FAILED", "CANCELLED"})
    @DisplayName("S-IK-5: TTL active releases the key as soon as the owner reaches any terminal status")
    void activeModeReleasesTheKeyAtAnyTerminalStatus(RunStatus terminal) {
        String report = unique("r");
        TriggerResult owner = runlane.template().trigger("reports.build", new BuildReport.Payload(report));
        assertThat(owner.run().idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.active());
        assertThat(runlane.template()
                        .trigger("reports.build", new BuildReport.Payload(report))
                        .runId())
                .isEqualTo(owner.runId());

        runlane.finish(owner.runId(), terminal);

        assertThat(runlane.hasKeyRow("reports.build", "report." + report)).isFalse();
        assertThat(runlane.template()
                        .trigger("reports.build", new BuildReport.Payload(report))
                        .created())
                .isTrue();
    }

    @Test
    @DisplayName("S-IK-5, S-TR-2: a per-call TTL of active overrides the task's retention")
    void perCallActiveTtlOverridesTheTask() {
        String customer = unique("c");
        TriggerResult owner = runlane.template()
                .trigger(
                        "customers.refresh",
                        new RefreshCustomer.Payload(customer),
                        TriggerOptions.builder()
                                .idempotencyKeyTtl(IdempotencyKeyTtl.active())
                                .build());
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);

        assertThat(refresh(customer).created()).isTrue();
    }

    @Test
    @DisplayName("S-IK-6: without a TTL the configured default of 30 days is stored with the run")
    void defaultTtlIsThirtyDays() {
        TriggerResult owner = order(unique("o"), TriggerOptions.none());
        Run finished = runlane.finish(owner.runId(), RunStatus.SUCCEEDED);

        assertThat(owner.run().idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(Duration.ofDays(30)));
        assertThat(runlane.retainedUntil("orders.confirm", owner.run().idempotencyKey()))
                .isEqualTo(finished.finishedAt().plus(Duration.ofDays(30)));
    }

    @Test
    @DisplayName("S-IK-6: the TTL captured at creation is not changed by later configuration")
    void ttlCapturedAtCreationSurvivesConfigurationChanges() {
        TestRunlane before = TestRunlane.start(
                dataSource,
                runlane.schema(),
                settings -> settings.withDefaultIdempotencyKeyTtl(IdempotencyKeyTtl.parse("1h")),
                TestTasks.all());
        TestRunlane after = TestRunlane.start(
                dataSource,
                runlane.schema(),
                settings -> settings.withDefaultIdempotencyKeyTtl(IdempotencyKeyTtl.parse("10d")),
                TestTasks.all());
        String orderId = unique("o");
        TriggerResult owner = before.template().trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 1));

        Run finished = after.finish(owner.runId(), RunStatus.SUCCEEDED);

        assertThat(after.retainedUntil("orders.confirm", "order." + orderId))
                .isEqualTo(finished.finishedAt().plus(Duration.ofHours(1)));
        after.age(owner.runId(), Duration.ofHours(1));
        assertThat(after.template()
                        .trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 1))
                        .created())
                .isTrue();
    }

    @Test
    @DisplayName("S-IK-8, S-IK-12: reset clears a retained owner so the next trigger creates a run, and starts nothing")
    void resetClearsARetainedOwner() {
        String customer = unique("c");
        TriggerResult owner = refresh(customer);
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);
        long runsBefore = runlane.rowCounts().runs();

        boolean reset = runlane.template().idempotencyKeys().reset("customers.refresh", "refresh." + customer);

        assertThat(reset).isTrue();
        assertThat(runlane.rowCounts().runs()).isEqualTo(runsBefore);
        assertThat(runlane.template().runs().get(owner.runId()).orElseThrow().status())
                .isEqualTo(RunStatus.SUCCEEDED);
        assertThat(runlane.template().runs().events(owner.runId()))
                .extracting(event -> event.type())
                .containsExactly(RunEventType.CREATED, RunEventType.SUCCEEDED, RunEventType.IDEMPOTENCY_KEY_RESET);
        assertThat(refresh(customer).created()).isTrue();
    }

    @Test
    @DisplayName("S-IK-8: reset returns false when the key has no owner, or only an expired one")
    void resetWithoutOwnerReturnsFalse() {
        assertThat(runlane.template().idempotencyKeys().reset("customers.refresh", unique("nobody")))
                .isFalse();

        String customer = unique("c");
        TriggerResult owner = refresh(customer);
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);
        runlane.age(owner.runId(), Duration.ofDays(2));

        assertThat(runlane.template().idempotencyKeys().reset("customers.refresh", "refresh." + customer))
                .isFalse();
    }

    @Test
    @DisplayName("S-IK-8: reset of an active owner fails and changes nothing")
    void resetOfAnActiveOwnerFails() {
        String customer = unique("c");
        TriggerResult owner = refresh(customer);
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(IdempotencyKeyActiveException.class)
                .isThrownBy(
                        () -> runlane.template().idempotencyKeys().reset("customers.refresh", "refresh." + customer))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("idempotency_key_active");
                    assertThat(ex.ownerRunId()).isEqualTo(owner.runId());
                });
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(refresh(customer).runId()).isEqualTo(owner.runId());
    }

    @Test
    @DisplayName("S-IK-10: an expired retention is absent at trigger time although its row is still there")
    void expiredRetentionIsTreatedAsAbsent() {
        String customer = unique("c");
        TriggerResult owner = refresh(customer);
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);
        runlane.age(owner.runId(), Duration.ofDays(3));

        assertThat(runlane.hasKeyRow("customers.refresh", "refresh." + customer))
                .isTrue();
        assertThat(runlane.template().runs().findCurrent("customers.refresh", "refresh." + customer))
                .isEmpty();
        TriggerResult next = refresh(customer);
        assertThat(next.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(runlane.template().runs().findCurrent("customers.refresh", "refresh." + customer))
                .map(Run::id)
                .contains(next.runId());
    }

    @Test
    @DisplayName("S-OP-1, S-OP-5: findCurrent and findActive follow the same rules as a duplicate trigger")
    void findCurrentAndFindActiveFollowOwnership() {
        String customer = unique("c");
        TriggerResult owner = refresh(customer);
        assertThat(runlane.template().runs().findActive("customers.refresh", "refresh." + customer, null))
                .map(Run::id)
                .contains(owner.runId());
        assertThat(runlane.template().runs().findActive("customers.refresh", null, "customer." + customer))
                .map(Run::id)
                .contains(owner.runId());
        assertThat(runlane.template()
                        .runs()
                        .findActive("customers.refresh", "refresh." + customer, "customer." + customer))
                .as("S-OP-5: both keys must match")
                .map(Run::id)
                .contains(owner.runId());
        assertThat(runlane.template()
                        .runs()
                        .findActive("customers.refresh", "refresh." + customer, "customer.someone-else"))
                .isEmpty();

        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);

        assertThat(runlane.template().runs().findActive("customers.refresh", "refresh." + customer, null))
                .isEmpty();
        assertThat(runlane.template().runs().findActive("customers.refresh", null, "customer." + customer))
                .isEmpty();
        assertThat(runlane.template().runs().findCurrent("customers.refresh", "refresh." + customer))
                .map(Run::id)
                .contains(owner.runId());
    }
}

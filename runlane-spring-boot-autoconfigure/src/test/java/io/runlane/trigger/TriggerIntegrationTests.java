package io.runlane.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Triggering (S-TR-1..5) against real PostgreSQL. */
@RunlaneDatabaseTest
class TriggerIntegrationTests {

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("trigger") String schema) {
        runlane = TestRunlane.start(
                dataSource, schema, settings -> settings.withQueues(Set.of("priority")), TestTasks.all());
    }

    private static Instant databaseNow() {
        return runlane.jdbc()
                .queryForObject("SELECT now()", java.time.OffsetDateTime.class)
                .toInstant();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("S-TR-1, S-RL-2: a created run is QUEUED, stores its payload as JSON and has a creation event")
    void createdRunIsStoredWithItsEvent() {
        String orderId = unique("o");
        TriggerResult result = runlane.template().trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 3));

        Run run = result.run();
        assertThat(result.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(run).isEqualTo(runlane.template().runs().get(run.id()).orElseThrow());
        assertThat(run.taskId()).isEqualTo("orders.confirm");
        assertThat(run.queue()).isEqualTo("default");
        assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(run.idempotencyKey()).isEqualTo("order." + orderId);
        assertThat(run.singletonKey()).isNull();
        assertThat(run.attempts()).isZero();
        assertThat(run.maxAttempts()).isEqualTo(3);
        assertThat(run.finishedAt()).isNull();
        assertThat(run.runAt()).isEqualTo(run.createdAt());
        assertThat(run.payloadJson())
                .contains("\"orderId\": \"" + orderId + "\"")
                .contains("\"quantity\": 3");
        assertThat(runlane.template().runs().events(run.id())).singleElement().satisfies(event -> {
            assertThat(event.sequence()).isEqualTo(1);
            assertThat(event.type()).isEqualTo(RunEventType.CREATED);
            assertThat(event.status()).isEqualTo(RunStatus.QUEUED);
            assertThat(event.createdAt()).isEqualTo(run.createdAt());
        });
    }

    @Test
    @DisplayName("S-TR-2: per-call options override the task's resolvers field by field")
    void optionsOverrideTheTaskFieldByField() {
        String customer = unique("c");
        TriggerResult result = runlane.template()
                .trigger(
                        "customers.refresh",
                        new RefreshCustomer.Payload(customer),
                        TriggerOptions.builder()
                                .idempotencyKey("custom-key-" + customer)
                                .idempotencyKeyTtl(IdempotencyKeyTtl.parse("15m"))
                                .concurrencyKey("tenant-1")
                                .queue("priority")
                                .build());

        Run run = result.run();
        assertThat(run.idempotencyKey()).isEqualTo("custom-key-" + customer);
        assertThat(run.idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(Duration.ofMinutes(15)));
        assertThat(run.singletonKey()).as("not overridden: the resolver's").isEqualTo("customer." + customer);
        assertThat(run.concurrencyKey()).isEqualTo("tenant-1");
        assertThat(run.queue()).isEqualTo("priority");
    }

    @Test
    @DisplayName("S-TR-2: without options the task's resolvers and declared TTL apply")
    void resolversApplyWithoutOptions() {
        String customer = unique("c");
        Run run = runlane.template()
                .trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer))
                .run();

        assertThat(run.idempotencyKey()).isEqualTo("refresh." + customer);
        assertThat(run.singletonKey()).isEqualTo("customer." + customer);
        assertThat(run.idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(Duration.ofHours(24)));
        assertThat(run.concurrencyKey()).isNull();
    }

    @Test
    @DisplayName("S-TR-3: a trigger inside a transaction is invisible to others until commit")
    void triggerJoinsTheCallersTransaction() {
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        String orderId = unique("o");

        UUID runId = transactions.execute(status -> {
            TriggerResult result = runlane.template().trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 1));
            boolean visibleOutside = CompletableFuture.supplyAsync(
                            () -> runlane.template().runs().get(result.runId()).isPresent())
                    .join();
            assertThat(visibleOutside)
                    .as("visible to another connection before commit")
                    .isFalse();
            assertThat(runlane.template().runs().get(result.runId()))
                    .as("visible inside")
                    .isPresent();
            return result.runId();
        });

        assertThat(runlane.template().runs().get(runId)).isPresent();
    }

    @Test
    @DisplayName("S-TR-3: a rolled-back transaction takes its run, event and key ownership with it")
    void rollbackRemovesTheRun() {
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        String customer = unique("c");
        TestRunlane.RowCounts before = runlane.rowCounts();

        UUID runId = transactions.execute(status -> {
            status.setRollbackOnly();
            return runlane.template()
                    .trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer))
                    .runId();
        });

        assertThat(runlane.template().runs().get(runId)).isEmpty();
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(runlane.template()
                        .trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer))
                        .created())
                .isTrue();
    }

    @Test
    @DisplayName("S-TR-4: a delayed run is SCHEDULED at the database's now plus the delay")
    void delayedRunIsScheduled() {
        Instant before = databaseNow();
        Run run = runlane.template()
                .trigger(
                        "mail.send",
                        new SendMail.Payload("a@example.com"),
                        TriggerOptions.builder().delay(Duration.ofMinutes(10)).build())
                .run();

        assertThat(run.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(run.runAt()).isEqualTo(run.createdAt().plus(Duration.ofMinutes(10)));
        assertThat(run.createdAt()).isAfterOrEqualTo(before);
    }

    @Test
    @DisplayName("S-TR-4, S-TR-7: a future run-at time is SCHEDULED; a past one or a zero delay is QUEUED")
    void runAtDecidesBetweenScheduledAndQueued() {
        Instant future = databaseNow().plus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MICROS);
        Instant past = databaseNow().minus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MICROS);

        Run scheduled = mail(TriggerOptions.builder().runAt(future).build());
        Run overdue = mail(TriggerOptions.builder().runAt(past).build());
        Run immediate = mail(TriggerOptions.builder().delay(Duration.ZERO).build());

        assertThat(scheduled.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(scheduled.runAt()).isEqualTo(future);
        assertThat(overdue.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(overdue.runAt()).isEqualTo(past);
        assertThat(immediate.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.template().runs().events(scheduled.id()))
                .extracting(RunEvent::status)
                .containsExactly(RunStatus.SCHEDULED);
    }

    private static Run mail(TriggerOptions options) {
        return runlane.template()
                .trigger("mail.send", new SendMail.Payload("a@example.com"), options)
                .run();
    }

    @Test
    @DisplayName("S-TR-8: a trigger inside a long transaction takes the database time of its statement")
    void triggerUsesItsStatementsTimeNotTheTransactionsStart() {
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        transactions.executeWithoutResult(status -> {
            Instant transactionStart = runlane.jdbc()
                    .queryForObject("SELECT now()", java.time.OffsetDateTime.class)
                    .toInstant();
            Run run = runlane.template()
                    .trigger(
                            "mail.send",
                            new SendMail.Payload("a@example.com"),
                            TriggerOptions.builder()
                                    .delay(Duration.ofMinutes(1))
                                    .build())
                    .run();
            assertThat(run.createdAt()).isAfter(transactionStart);
            assertThat(run.runAt()).isEqualTo(run.createdAt().plus(Duration.ofMinutes(1)));
        });
    }

    @Test
    @DisplayName("S-TR-5: a batch answers each item in input order and resolves duplicates to one owner")
    void batchAnswersInInputOrderAndDeduplicates() {
        String a = unique("a");
        String b = unique("b");
        TriggerResult existing = runlane.template().trigger("orders.confirm", new ConfirmOrder.Payload(b, 1));

        List<TriggerResult> results = runlane.template()
                .triggerAll(List.of(
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(a, 1)),
                        TriggerRequest.of("mail.send", new SendMail.Payload("x@example.com")),
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(b, 1)),
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(a, 2)),
                        TriggerRequest.of(
                                "mail.send",
                                new SendMail.Payload("y@example.com"),
                                TriggerOptions.builder()
                                        .delay(Duration.ofMinutes(1))
                                        .build())));

        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsExactly(
                        TriggerOutcome.CREATED,
                        TriggerOutcome.CREATED,
                        TriggerOutcome.RETURNED_EXISTING,
                        TriggerOutcome.RETURNED_EXISTING,
                        TriggerOutcome.CREATED);
        assertThat(results.get(0).run().idempotencyKey()).isEqualTo("order." + a);
        assertThat(results.get(1).run().taskId()).isEqualTo("mail.send");
        assertThat(results.get(2).runId()).isEqualTo(existing.runId());
        assertThat(results.get(3).runId()).isEqualTo(results.get(0).runId());
        assertThat(results.get(4).run().status()).isEqualTo(RunStatus.SCHEDULED);
    }

    @Test
    @DisplayName(
            "S-TR-5, S-IK-3, S-IK-10: a batch follows retention: retained owners answer, expired ones are replaced")
    void batchFollowsRetention() {
        String retained = unique("kept");
        String expired = unique("gone");
        TriggerResult keptOwner =
                runlane.template().trigger("orders.confirm", new ConfirmOrder.Payload(retained.substring(0, 30), 1));
        TriggerResult goneOwner =
                runlane.template().trigger("orders.confirm", new ConfirmOrder.Payload(expired.substring(0, 30), 1));
        runlane.finish(keptOwner.runId(), RunStatus.SUCCEEDED);
        runlane.finish(goneOwner.runId(), RunStatus.SUCCEEDED);
        runlane.age(goneOwner.runId(), Duration.ofDays(31));

        List<TriggerResult> results = runlane.template()
                .triggerAll(List.of(
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(expired.substring(0, 30), 1)),
                        TriggerRequest.of("accounts.sync", new TestTasks.SyncAccount.Payload(unique("acct"))),
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(retained.substring(0, 30), 1)),
                        TriggerRequest.of(
                                "mail.send",
                                new SendMail.Payload("later@example.com"),
                                TriggerOptions.builder()
                                        .runAt(databaseNow().plus(Duration.ofHours(1)))
                                        .build())));

        assertThat(results)
                .extracting(TriggerResult::outcome)
                .containsExactly(
                        TriggerOutcome.CREATED,
                        TriggerOutcome.CREATED,
                        TriggerOutcome.RETURNED_EXISTING,
                        TriggerOutcome.CREATED);
        assertThat(results.get(0).runId()).isNotEqualTo(goneOwner.runId());
        assertThat(results.get(2).runId()).isEqualTo(keptOwner.runId());
        assertThat(results.get(3).run().status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(runlane.template()
                        .runs()
                        .findCurrent("orders.confirm", results.get(0).run().idempotencyKey()))
                .map(Run::id)
                .contains(results.get(0).runId());
        assertThat(results)
                .filteredOn(TriggerResult::created)
                .allSatisfy(result -> assertThat(runlane.template().runs().events(result.runId()))
                        .extracting(RunEvent::type)
                        .containsExactly(RunEventType.CREATED));
    }

    @Test
    @DisplayName("S-TR-5, S-TR-6: an invalid item fails the batch before anything is written")
    void invalidItemFailsTheWholeBatch() {
        TestRunlane.RowCounts before = runlane.rowCounts();

        org.assertj.core.api.Assertions.assertThatExceptionOfType(io.runlane.PayloadValidationException.class)
                .isThrownBy(() -> runlane.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload(unique("o"), 1)),
                                TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload("", 1)))));

        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-TR-5: an empty batch is answered with no results")
    void emptyBatchIsEmpty() {
        assertThat(runlane.template().triggerAll(List.of())).isEmpty();
    }
}

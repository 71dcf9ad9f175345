package io.runlane.singleton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import io.runlane.testsupport.TestTasks.SyncAccount;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Singleton key ownership (S-SK-1..5) against real PostgreSQL. */
@RunlaneDatabaseTest
class SingletonKeyIntegrationTests {

    @Pool(size = 40)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("singleton") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static TriggerResult sync(String accountId) {
        return runlane.template().trigger("accounts.sync", new SyncAccount.Payload(accountId));
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("S-SK-2: a trigger without an idempotency key fails while the singleton is held, naming the owner")
    void conflictingTriggerFailsWithTheOwnersId() {
        String account = unique("a");
        TriggerResult owner = sync(account);
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(SingletonConflictException.class)
                .isThrownBy(() -> sync(account))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("singleton_conflict");
                    assertThat(ex.ownerRunId()).isEqualTo(owner.runId());
                    assertThat(ex.singletonKey()).isEqualTo("account." + account);
                    assertThat(ex.getMessage()).contains(owner.runId().toString());
                });
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-SK-2: another idempotency identity conflicts too, and its key claim is undone")
    void anotherIdempotencyIdentityConflictsAndLeavesNoKeyBehind() {
        String customer = unique("c");
        TriggerResult owner = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(SingletonConflictException.class)
                .isThrownBy(() -> runlane.template()
                        .trigger(
                                "customers.refresh",
                                new RefreshCustomer.Payload(customer),
                                TriggerOptions.builder()
                                        .idempotencyKey("another-request")
                                        .build()))
                .satisfies(ex -> assertThat(ex.ownerRunId()).isEqualTo(owner.runId()));

        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(runlane.hasKeyRow("customers.refresh", "another-request")).isFalse();
    }

    @Test
    @DisplayName("S-SK-3: an idempotency key that resolves to its owner is answered before any singleton check")
    void idempotencyOwnerIsReturnedBeforeTheSingletonCheck() {
        String customer = unique("c");
        TriggerResult owner = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));

        TriggerResult again = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));

        assertThat(again.created()).isFalse();
        assertThat(again.runId()).isEqualTo(owner.runId());
    }

    @Test
    @DisplayName("S-SK-3: a retained idempotency owner is returned even while another run holds the singleton")
    void retainedOwnerIsReturnedWhileAnotherRunHoldsTheSingleton() {
        String customer = unique("c");
        TriggerResult first = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));
        runlane.finish(first.runId(), RunStatus.SUCCEEDED);
        TriggerResult holder = runlane.template()
                .trigger(
                        "customers.refresh",
                        new RefreshCustomer.Payload(customer),
                        TriggerOptions.builder()
                                .idempotencyKey("manual-" + customer)
                                .build());

        TriggerResult again = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));

        assertThat(holder.created()).isTrue();
        assertThat(again.created()).isFalse();
        assertThat(again.runId()).isEqualTo(first.runId());
    }

    @ParameterizedTest
    @EnumSource(
            value = RunStatus.class,
            names = {"SUCCEEDED", "FAILED", "CANCELLED"})
    @DisplayName("S-SK-1: singleton ownership is released in the transition that makes the owner terminal")
    void singletonIsReleasedAtEachTerminalStatus(RunStatus terminal) {
        String account = unique("a");
        TriggerResult owner = sync(account);

        runlane.finish(owner.runId(), terminal);

        TriggerResult next = sync(account);
        assertThat(next.created()).isTrue();
        assertThat(next.runId()).isNotEqualTo(owner.runId());
        assertThat(runlane.template().runs().findActive("accounts.sync", null, "account." + account))
                .hasValueSatisfying(run -> assertThat(run.id()).isEqualTo(next.runId()));
    }

    @Test
    @DisplayName("S-SK-5: different singleton keys never block each other")
    void differentSingletonKeysProceedIndependently() {
        TriggerResult first = sync(unique("a"));
        TriggerResult second = sync(unique("a"));

        assertThat(first.created()).isTrue();
        assertThat(second.created()).isTrue();
        assertThat(first.runId()).isNotEqualTo(second.runId());
    }

    @Test
    @DisplayName("S-SK-1: the same singleton key on another task is unrelated")
    void singletonKeysAreScopedByTask() {
        String key = unique("shared");
        TriggerResult sync = runlane.template()
                .trigger(
                        "accounts.sync",
                        new SyncAccount.Payload("x"),
                        TriggerOptions.builder().singletonKey(key).build());
        TriggerResult mail = runlane.template()
                .trigger(
                        "mail.send",
                        new TestTasks.SendMail.Payload("x"),
                        TriggerOptions.builder().singletonKey(key).build());

        assertThat(sync.created()).isTrue();
        assertThat(mail.created()).isTrue();
    }

    @Test
    @DisplayName("S-SK-2, S-SK-6, S-TR-3: a conflict inside the caller's transaction leaves that transaction usable")
    void conflictInsideACallersTransactionLeavesItUsable() {
        String customer = unique("c");
        TriggerResult owner = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));
        String otherCustomer = unique("c");
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        TriggerResult afterConflict = transactions.execute(status -> {
            assertThatExceptionOfType(SingletonConflictException.class)
                    .isThrownBy(() -> runlane.template()
                            .trigger(
                                    "customers.refresh",
                                    new RefreshCustomer.Payload(customer),
                                    TriggerOptions.builder()
                                            .idempotencyKey("other-" + customer)
                                            .build()));
            return runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(otherCustomer));
        });

        assertThat(runlane.template().runs().get(afterConflict.runId())).isPresent();
        assertThat(runlane.hasKeyRow("customers.refresh", "other-" + customer)).isFalse();
        assertThat(runlane.template().runs().get(owner.runId()).orElseThrow().status())
                .isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-TR-5, S-TR-6, S-SK-2: a batch whose item conflicts writes nothing at all")
    void batchWithAConflictWritesNothing() {
        String account = unique("a");
        TriggerResult owner = sync(account);
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(SingletonConflictException.class)
                .isThrownBy(() -> runlane.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("mail.send", new TestTasks.SendMail.Payload("a@example.com")),
                                TriggerRequest.of("accounts.sync", new SyncAccount.Payload(account)))))
                .satisfies(ex -> assertThat(ex.ownerRunId()).isEqualTo(owner.runId()));
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-SK-4: 32 threads racing for one singleton key get exactly one owner, the rest see it")
    void racingTriggersGetExactlyOneOwner() {
        for (int round = 0; round < 5; round++) {
            String customer = unique("race");
            List<Outcome<TriggerResult>> outcomes = Concurrently.run(
                    32,
                    caller -> () -> runlane.template()
                            .trigger(
                                    "customers.refresh",
                                    new RefreshCustomer.Payload(customer),
                                    TriggerOptions.builder()
                                            .idempotencyKey("request-" + customer + "-" + caller)
                                            .build()));

            List<TriggerResult> created = outcomes.stream()
                    .filter(outcome -> !outcome.failed())
                    .map(Outcome::value)
                    .toList();
            assertThat(created).hasSize(1);
            assertThat(outcomes.stream().filter(Outcome::failed).map(Outcome::failure))
                    .hasSize(31)
                    .allSatisfy(failure -> assertThat(failure)
                            .isInstanceOfSatisfying(
                                    SingletonConflictException.class,
                                    ex -> assertThat(ex.ownerRunId())
                                            .isEqualTo(created.get(0).runId())));
            assertThat(runlane.jdbc()
                            .queryForObject(
                                    "SELECT count(*) FROM " + runlane.schema()
                                            + ".runs WHERE idempotency_key LIKE 'request-%' AND singleton_key = ?",
                                    Long.class,
                                    "customer." + customer))
                    .isOne();
        }
    }

    @Test
    @DisplayName("S-SK-4: under a storm of triggers and terminal transitions no instant has two active owners")
    void stormNeverHasTwoActiveOwners() throws Exception {
        String account = unique("storm");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong samples = new AtomicLong();
        List<Long> violations = new ArrayList<>();
        Thread sampler = new Thread(() -> {
            while (running.get()) {
                Long active = runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema()
                                        + ".runs WHERE singleton_key = ? AND finished_at IS NULL",
                                Long.class,
                                "account." + account);
                samples.incrementAndGet();
                if (active > 1) {
                    synchronized (violations) {
                        violations.add(active);
                    }
                }
            }
        });
        sampler.start();
        try {
            List<Outcome<Integer>> outcomes = Concurrently.run(16, caller -> () -> {
                int created = 0;
                for (int i = 0; i < 40; i++) {
                    try {
                        TriggerResult result = sync(account);
                        created++;
                        runlane.engine().transitions().finish(result.runId(), RunStatus.SUCCEEDED, null, "storm", null);
                    } catch (SingletonConflictException expected) {
                        // another caller holds the key right now
                    }
                }
                return created;
            });
            assertThat(outcomes).noneMatch(Outcome::failed);
            assertThat(outcomes.stream().mapToInt(Outcome::value).sum()).isPositive();
        } finally {
            running.set(false);
            sampler.join();
        }
        assertThat(samples.get()).isPositive();
        assertThat(violations).isEmpty();
    }
}

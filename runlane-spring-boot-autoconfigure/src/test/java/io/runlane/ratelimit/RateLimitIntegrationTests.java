package io.runlane.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.RateLimitExceededException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.autoconfigure.actuate.RunlaneMetrics;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Rate limits at the trigger (S-RT-1..4) against real PostgreSQL. */
@RunlaneDatabaseTest
class RateLimitIntegrationTests {

    /** Three exports per customer per hour; a request id makes a trigger idempotent. */
    @Task(id = "exports.build", rateLimit = 3, rateLimitPeriod = "1h")
    public static class BuildExport implements TaskHandler<BuildExport.Payload> {

        public record Payload(String customerId, @Nullable String requestId) {}

        @Override
        public @Nullable String idempotencyKey(Payload payload) {
            return payload.requestId();
        }

        @Override
        public String rateLimitKey(Payload payload) {
            return "customer." + payload.customerId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Two digests per hour for the whole task: no key. */
    @Task(id = "digests.send", rateLimit = 2, rateLimitPeriod = "1h")
    public static class SendDigest implements TaskHandler<SendDigest.Payload> {

        public record Payload(String text) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Two pings per key in any 1.5 s: short enough for the window to slide within a test. */
    @Task(id = "pings.send", rateLimit = 2, rateLimitPeriod = "1500ms")
    public static class SendPing implements TaskHandler<SendPing.Payload> {

        public record Payload(String target) {}

        @Override
        public String rateLimitKey(Payload payload) {
            return payload.target();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Debounced per topic, two runs per account per hour: a fold creates no run, so it counts nothing. */
    @Task(id = "alerts.digest", debounce = "1h", rateLimit = 2, rateLimitPeriod = "1h")
    public static class DigestAlerts implements TaskHandler<DigestAlerts.Payload> {

        public record Payload(String topic, String account) {}

        @Override
        public String debounceKey(Payload payload) {
            return payload.topic();
        }

        @Override
        public String rateLimitKey(Payload payload) {
            return payload.account();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 40)
    private static HikariDataSource dataSource;

    @Pool(size = 40)
    private static HikariDataSource otherDataSource;

    private static final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private static TestRunlane runlane;

    private static TestRunlane other;

    @BeforeAll
    static void start(@FreshSchema("rate_limits") String schema) {
        Object[] handlers = {
            new BuildExport(), new SendDigest(), new SendPing(), new DigestAlerts(), new TestTasks.RefreshCustomer()
        };
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults(),
                new RunlaneMetrics(meters, List.of("default"), Map::of, Duration.ofMinutes(1)),
                handlers);
        other = runlane.instanceOn(otherDataSource);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static TriggerResult export(String customer) {
        return export(customer, null);
    }

    private static TriggerResult export(String customer, @Nullable String requestId) {
        return runlane.template().trigger(BuildExport.class, new BuildExport.Payload(customer, requestId));
    }

    private static long runsOf(String taskId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE task_id = ?", Long.class, taskId);
    }

    private static long exportsOf(String customer) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema()
                                + ".runs WHERE task_id = 'exports.build' AND payload ->> 'customerId' = ?",
                        Long.class,
                        customer);
    }

    private static long creations(String taskId, String key) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema()
                                + ".rate_limit_creations WHERE task_id = ? AND rate_limit_key = ?",
                        Long.class,
                        taskId,
                        key);
    }

    private static Instant databaseNow() {
        return runlane.jdbc()
                .queryForObject("SELECT now()", OffsetDateTime.class)
                .toInstant();
    }

    @Test
    @DisplayName("S-RT-1, S-RT-2: N runs per key in a window; the next trigger fails typed, naming task, key and time")
    void limitsRunsPerKeyAndRefusesTheNext() {
        String customer = unique("c");
        List<TriggerResult> created = List.of(export(customer), export(customer), export(customer));
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> export(customer))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("rate_limited");
                    assertThat(ex.taskId()).isEqualTo("exports.build");
                    assertThat(ex.rateLimitKey()).isEqualTo("customer." + customer);
                    assertThat(ex.retryAfter())
                            .isEqualTo(created.get(0).run().createdAt().plus(Duration.ofHours(1)));
                    assertThat(ex.getMessage()).contains("exports.build", "customer." + customer);
                });

        assertThat(created).allSatisfy(result -> assertThat(result.created()).isTrue());
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(exportsOf(customer)).isEqualTo(3);
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-1: each key has its own limit")
    void keysAreIndependent() {
        String first = unique("c");
        String second = unique("c");
        for (int i = 0; i < 3; i++) {
            export(first);
        }

        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(first));
        assertThat(export(second).created()).isTrue();
        assertThat(runlane.template()
                        .trigger(
                                BuildExport.class,
                                new BuildExport.Payload(first, null),
                                TriggerOptions.builder()
                                        .rateLimitKey(unique("k"))
                                        .build())
                        .created())
                .as("a per-call key wins over the resolver's")
                .isTrue();
    }

    @Test
    @DisplayName("S-RT-1: without a key the limit is the whole task's")
    void withoutAKeyTheLimitIsTheTasks() {
        runlane.template().trigger(SendDigest.class, new SendDigest.Payload("a"));
        runlane.template().trigger(SendDigest.class, new SendDigest.Payload("b"));

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> runlane.template().trigger(SendDigest.class, new SendDigest.Payload("c")))
                .satisfies(ex -> assertThat(ex.rateLimitKey()).isNull());
        assertThat(runsOf("digests.send")).isEqualTo(2);
        assertThat(creations("digests.send", "")).isEqualTo(2);
    }

    @Test
    @DisplayName("S-RT-1, S-RT-2: the window slides: room returns when the oldest creation leaves it, at retryAfter")
    void theWindowSlides() {
        String target = unique("t");
        TriggerResult oldest = runlane.template().trigger(SendPing.class, new SendPing.Payload(target));
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> databaseNow().isAfter(oldest.run().createdAt().plusMillis(700)));
        runlane.template().trigger(SendPing.class, new SendPing.Payload(target));
        RateLimitExceededException refusal = org.junit.jupiter.api.Assertions.assertThrows(
                RateLimitExceededException.class,
                () -> runlane.template().trigger(SendPing.class, new SendPing.Payload(target)));
        assertThat(refusal.retryAfter()).isEqualTo(oldest.run().createdAt().plus(Duration.ofMillis(1500)));

        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .ignoreException(RateLimitExceededException.class)
                .until(() -> runlane.template()
                        .trigger(SendPing.class, new SendPing.Payload(target))
                        .created());

        assertThat(databaseNow()).isAfter(refusal.retryAfter());
        assertThatExceptionOfType(RateLimitExceededException.class)
                .as("the second creation is still in the window")
                .isThrownBy(() -> runlane.template().trigger(SendPing.class, new SendPing.Payload(target)));
    }

    @Test
    @DisplayName("S-RT-2: the admission prunes its key's creations that have left the window")
    void admissionPrunesItsExpiredCreations() {
        String target = unique("t");
        runlane.template().trigger(SendPing.class, new SendPing.Payload(target));
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema()
                                + ".rate_limit_creations SET created_at = created_at - interval '1 hour'"
                                + " WHERE rate_limit_key = ?",
                        target);

        runlane.template().trigger(SendPing.class, new SendPing.Payload(target));

        assertThat(creations("pings.send", target)).isOne();
    }

    @Test
    @DisplayName("S-RT-5: the pruner deletes creations older than the longest declared period, and keeps the others")
    void prunerDeletesCreationsOlderThanTheLongestPeriod() {
        String abandoned = unique("c");
        String recent = unique("c");
        export(abandoned);
        export(recent);
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema()
                                + ".rate_limit_creations SET created_at = created_at - interval '61 minutes'"
                                + " WHERE rate_limit_key = ?",
                        "customer." + abandoned);

        runlane.engine().pruning().pruneOnce();

        assertThat(creations("exports.build", "customer." + abandoned)).isZero();
        assertThat(creations("exports.build", "customer." + recent)).isOne();
    }

    @RepeatedTest(3)
    @DisplayName("S-RT-4: 64 threads on two instances triggering one key create exactly N runs; the rest are refused")
    void exactUnderAStormAcrossTwoInstances() {
        String customer = unique("c");

        List<Outcome<TriggerResult>> outcomes = Concurrently.run(
                64,
                i -> () -> (i % 2 == 0 ? runlane : other)
                        .template()
                        .trigger(BuildExport.class, new BuildExport.Payload(customer, null)));

        assertThat(outcomes.stream().filter(outcome -> !outcome.failed()))
                .hasSize(3)
                .allSatisfy(outcome -> assertThat(outcome.value().created()).isTrue());
        assertThat(outcomes.stream().filter(Outcome::failed))
                .hasSize(61)
                .allSatisfy(outcome -> assertThat(outcome.failure()).isInstanceOf(RateLimitExceededException.class));
        assertThat(exportsOf(customer)).isEqualTo(3);
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-3: triggers answered by an idempotency key count nothing, even at the limit")
    void idempotentDuplicatesCountNothing() {
        String customer = unique("c");
        TriggerResult first = export(customer, "r1");
        for (int i = 0; i < 5; i++) {
            assertThat(export(customer, "r1").runId()).isEqualTo(first.runId());
        }
        export(customer, "r2");
        export(customer, "r3");

        assertThat(export(customer, "r1").runId())
                .as("at the limit the key's owner still answers")
                .isEqualTo(first.runId());
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(customer, "r4"));
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-3: reruns and retries count like triggers")
    void rerunsAndRetriesCount() {
        String customer = unique("c");
        TriggerResult first = export(customer);
        runlane.finish(first.runId(), RunStatus.FAILED);

        Run retried = runlane.template().runs().retry(first.runId());
        Run rerun = runlane.template().runs().rerun(first.runId());

        assertThat(retried.id()).isNotEqualTo(first.runId());
        assertThat(rerun.id()).isNotEqualTo(first.runId());
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> runlane.template().runs().rerun(first.runId()));
        assertThat(exportsOf(customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-3, S-RT-2: a fork at the limit is refused typed, naming task, key and time, and writes nothing")
    void forkAtTheLimitIsRefused() {
        String customer = unique("c");
        TriggerResult first = export(customer);
        export(customer);
        export(customer);
        runlane.finish(first.runId(), RunStatus.SUCCEEDED);
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> runlane.template().runs().fork(first.runId(), null))
                .satisfies(ex -> {
                    assertThat(ex.taskId()).isEqualTo("exports.build");
                    assertThat(ex.rateLimitKey()).isEqualTo("customer." + customer);
                    assertThat(ex.retryAfter())
                            .isEqualTo(first.run().createdAt().plus(Duration.ofHours(1)));
                });

        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(exportsOf(customer)).isEqualTo(3);
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-3: a fork below the limit counts like a trigger: the trigger after the limit's forks is refused")
    void forksCount() {
        String customer = unique("c");
        TriggerResult first = export(customer);
        runlane.finish(first.runId(), RunStatus.SUCCEEDED);

        Run fork = runlane.template().runs().fork(first.runId(), null);
        Run second = runlane.template().runs().fork(first.runId(), null);

        assertThat(List.of(fork.id(), second.id()))
                .doesNotContain(first.runId())
                .doesNotHaveDuplicates();
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(customer));
        assertThat(exportsOf(customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-3: a fork, rerun or retry given a rate-limit key in its options counts under that key")
    void derivedRunsCountUnderTheOptionsKey() {
        String customer = unique("c");
        String key = unique("k");
        TriggerOptions options = TriggerOptions.builder().rateLimitKey(key).build();
        TriggerResult first = export(customer);
        runlane.finish(first.runId(), RunStatus.FAILED);

        runlane.template().runs().fork(first.runId(), null, options);
        runlane.template().runs().rerun(first.runId(), options);
        runlane.template().runs().retry(first.runId(), options);

        assertThat(creations("exports.build", key)).isEqualTo(3);
        assertThat(creations("exports.build", "customer." + customer)).isOne();
        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> runlane.template().runs().fork(first.runId(), null, options))
                .satisfies(ex -> assertThat(ex.rateLimitKey()).isEqualTo(key));
        assertThat(export(customer).created())
                .as("the resolver's key still has room")
                .isTrue();
    }

    @Test
    @DisplayName(
            "S-RT-3: a debounce fold counts nothing, and at the limit still answers DEBOUNCED with the pending run")
    void debounceFoldsCountNothingEvenAtTheLimit() {
        String account = unique("a");
        String first = unique("topic");
        TriggerResult pending = alert(first, account);
        for (int i = 0; i < 3; i++) {
            assertThat(alert(first, account).outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
        }
        assertThat(alert(unique("topic"), account).created())
                .as("the folds took no room")
                .isTrue();
        assertThat(creations("alerts.digest", account)).isEqualTo(2);
        TestRunlane.RowCounts before = runlane.rowCounts();

        TriggerResult folded = alert(first, account);

        assertThat(folded.outcome()).isEqualTo(TriggerOutcome.DEBOUNCED);
        assertThat(folded.runId()).isEqualTo(pending.runId());
        assertThat(runlane.rowCounts().runs()).isEqualTo(before.runs());
        assertThat(creations("alerts.digest", account)).isEqualTo(2);
        assertThatExceptionOfType(RateLimitExceededException.class)
                .as("a trigger that would create a run is refused")
                .isThrownBy(() -> alert(unique("topic"), account));
    }

    @RepeatedTest(2)
    @DisplayName("S-RT-4, S-RT-3: debounced triggers of many keys on two instances create exactly N pending runs")
    void debouncedTriggersAreExactUnderAStorm() {
        String account = unique("a");

        List<Outcome<TriggerResult>> outcomes = Concurrently.run(
                32,
                i -> () -> (i % 2 == 0 ? runlane : other)
                        .template()
                        .trigger(DigestAlerts.class, new DigestAlerts.Payload("topic-" + i + "-" + account, account)));

        assertThat(outcomes.stream().filter(outcome -> !outcome.failed()))
                .hasSize(2)
                .allSatisfy(outcome -> assertThat(outcome.value().created()).isTrue());
        assertThat(outcomes.stream().filter(Outcome::failed))
                .hasSize(30)
                .allSatisfy(outcome -> assertThat(outcome.failure()).isInstanceOf(RateLimitExceededException.class));
        assertThat(creations("alerts.digest", account)).isEqualTo(2);
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema()
                                        + ".runs WHERE task_id = 'alerts.digest' AND payload ->> 'account' = ?",
                                Long.class,
                                account))
                .isEqualTo(2);
    }

    @Test
    @DisplayName("S-RT-2: a batch whose debounced item is over its key's limit fails as a whole and writes nothing")
    void batchWithADebouncedItemOverTheLimit() {
        String account = unique("a");
        alert(unique("topic"), account);
        String digest = unique("d");
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> runlane.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("digests.send", new SendDigest.Payload(digest)),
                                TriggerRequest.of("alerts.digest", new DigestAlerts.Payload(unique("topic"), account)),
                                TriggerRequest.of(
                                        "alerts.digest", new DigestAlerts.Payload(unique("topic"), account)))))
                .satisfies(ex -> {
                    assertThat(ex.taskId()).isEqualTo("alerts.digest");
                    assertThat(ex.rateLimitKey()).isEqualTo(account);
                });

        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(creations("alerts.digest", account)).isOne();
    }

    private static TriggerResult alert(String topic, String account) {
        return runlane.template().trigger(DigestAlerts.class, new DigestAlerts.Payload(topic, account));
    }

    @Test
    @DisplayName("S-RT-1: a rate-limit key given to a fork or rerun of a task without a limit fails and writes nothing")
    void derivedRunKeyForATaskWithoutALimitFails() {
        TriggerResult source = runlane.template()
                .trigger(TestTasks.RefreshCustomer.class, new TestTasks.RefreshCustomer.Payload(unique("c")));
        runlane.finish(source.runId(), RunStatus.SUCCEEDED);
        TriggerOptions options = TriggerOptions.builder().rateLimitKey("k").build();
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> runlane.template().runs().fork(source.runId(), null, options))
                .satisfies(ex -> assertThat(ex.getMessage()).contains("rateLimitKey"));
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> runlane.template().runs().rerun(source.runId(), options))
                .satisfies(ex -> assertThat(ex.getMessage()).contains("rateLimitKey"));
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-RT-3: a trigger in a caller's transaction that rolls back counts nothing")
    void rolledBackTriggersCountNothing() {
        String customer = unique("c");
        TransactionTemplate transaction = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        for (int i = 0; i < 3; i++) {
            transaction.executeWithoutResult(status -> {
                export(customer);
                status.setRollbackOnly();
            });
        }

        assertThat(creations("exports.build", "customer." + customer)).isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(export(customer).created()).isTrue();
        }
    }

    @Test
    @DisplayName("S-RT-2: a refusal in a caller's transaction leaves the transaction usable and writes nothing")
    void refusalInACallersTransactionLeavesItUsable() {
        String customer = unique("c");
        for (int i = 0; i < 3; i++) {
            export(customer);
        }
        String digest = unique("d");
        TransactionTemplate transaction = new TransactionTemplate(new JdbcTransactionManager(dataSource));

        TriggerResult committed = transaction.execute(status -> {
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(customer));
            return runlane.template()
                    .trigger(TestTasks.RefreshCustomer.class, new TestTasks.RefreshCustomer.Payload(digest));
        });

        assertThat(runlane.run(committed.runId()).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(exportsOf(customer)).isEqualTo(3);
    }

    @Test
    @DisplayName("S-RT-2: a batch over a key's limit fails as a whole and writes nothing; within it, it is counted")
    void batches() {
        String customer = unique("c");
        List<TriggerRequest> three = List.of(
                TriggerRequest.of("exports.build", new BuildExport.Payload(customer, null)),
                TriggerRequest.of("exports.build", new BuildExport.Payload(customer, null)),
                TriggerRequest.of("exports.build", new BuildExport.Payload(customer, null)));
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> runlane.template()
                        .triggerAll(List.of(
                                three.get(0),
                                three.get(1),
                                TriggerRequest.of("pings.send", new SendPing.Payload(unique("t"))),
                                three.get(2),
                                TriggerRequest.of("exports.build", new BuildExport.Payload(customer, null)))))
                .satisfies(ex -> assertThat(ex.rateLimitKey()).isEqualTo("customer." + customer));
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(creations("exports.build", "customer." + customer)).isZero();

        List<TriggerResult> results = runlane.template().triggerAll(three);
        assertThat(results).allSatisfy(result -> assertThat(result.created()).isTrue());
        assertThat(creations("exports.build", "customer." + customer)).isEqualTo(3);
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(customer));
    }

    @Test
    @DisplayName(
            "S-RT-1: an invalid per-call key fails typed and writes nothing; so does a key for a task without a limit")
    void badInput() {
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(InvalidKeyException.class)
                .isThrownBy(() -> runlane.template()
                        .trigger(
                                BuildExport.class,
                                new BuildExport.Payload(unique("c"), null),
                                TriggerOptions.builder().rateLimitKey("a:b").build()))
                .satisfies(ex -> assertThat(ex.getMessage()).contains("rateLimitKey"));
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> runlane.template()
                        .trigger(
                                TestTasks.RefreshCustomer.class,
                                new TestTasks.RefreshCustomer.Payload(unique("c")),
                                TriggerOptions.builder().rateLimitKey("k").build()))
                .satisfies(ex -> assertThat(ex.getMessage()).contains("rateLimitKey"));
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-RT-2: refusals are counted by the meter runlane.trigger.rate_limited, tag task")
    void refusalsAreMetered() {
        String customer = unique("c");
        for (int i = 0; i < 3; i++) {
            export(customer);
        }
        double before = refusalsMetered();

        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(customer));
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> export(customer));

        assertThat(refusalsMetered()).isEqualTo(before + 2);
    }

    private static double refusalsMetered() {
        var counter = meters.find("runlane.trigger.rate_limited")
                .tag("task", "exports.build")
                .counter();
        return counter == null ? 0 : counter.count();
    }
}

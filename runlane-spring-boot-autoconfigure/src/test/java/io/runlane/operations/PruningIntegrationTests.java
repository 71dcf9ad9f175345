package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.PruneRequest;
import io.runlane.PruneResult;
import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.PruningSettings;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.maintenance.RunPruner;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Pruning (S-OP-3, S-OP-4, S-IK-9) against real PostgreSQL. */
@RunlaneDatabaseTest
class PruningIntegrationTests {

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("pruning") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    /** Inserts finished runs directly, {@code age} after they finished, with a creation event each. */
    private void insertFinished(int count, RunStatus status, Duration age) {
        runlane.jdbc()
                .update(
                        """
                WITH inserted AS (
                    INSERT INTO %1$s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                           created_at, updated_at, finished_at)
                    SELECT gen_random_uuid(), 'default', 'mail.send', 'default', ?, '{"to": "x"}', 3,
                           now() - make_interval(secs => ?), now() - make_interval(secs => ?),
                           now() - make_interval(secs => ?), now() - make_interval(secs => ?)
                    FROM generate_series(1, ?)
                    RETURNING id, status, created_at
                )
                INSERT INTO %1$s.run_events (run_id, seq, type, status, created_at)
                SELECT id, 1, 'CREATED', status, created_at FROM inserted
                """.formatted(runlane.schema()),
                        status.name(),
                        age.toSeconds(),
                        age.toSeconds(),
                        age.toSeconds(),
                        age.toSeconds(),
                        count);
    }

    private long count(String table) {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + "." + table, Long.class);
    }

    private PruningService pruningJob(Map<RunStatus, Duration> retention) {
        PruningSettings settings =
                PruningSettings.defaults().withRetention(retention).withBatchSize(100);
        return new PruningService(
                new RunPruner(JdbcClient.create(dataSource), new SqlTemplate(runlane.schema()), "default"),
                settings.retention(),
                settings.interval(),
                settings.batchSize(),
                Duration.ofMinutes(1),
                EngineListener.NONE);
    }

    @Test
    @DisplayName("S-OP-3: prune deletes finished runs older than the age, of the given statuses, with their events")
    void pruneByAgeAndStatus() {
        insertFinished(30, RunStatus.SUCCEEDED, Duration.ofDays(10));
        insertFinished(20, RunStatus.FAILED, Duration.ofDays(10));
        insertFinished(10, RunStatus.SUCCEEDED, Duration.ofDays(1));
        Run active = runlane.template()
                .trigger("mail.send", new SendMail.Payload("a"))
                .run();

        PruneResult result = runlane.template()
                .runs()
                .prune(PruneRequest.olderThan(Duration.ofDays(7))
                        .withStatuses(RunStatus.SUCCEEDED)
                        .withBatchSize(7));

        assertThat(result.runs()).isEqualTo(30);
        assertThat(result.batches()).isEqualTo(5);
        assertThat(result.complete()).isTrue();
        assertThat(count("runs")).isEqualTo(20 + 10 + 1);
        assertThat(count("run_events"))
                .as("the pruned runs' events went with them; the triggered run's creation event is its row")
                .isEqualTo(20 + 10);
        assertThat(runlane.template().runs().get(active.id())).isPresent();
    }

    @Test
    @DisplayName("S-OP-3, S-OP-8: maxRuns bounds one call, which then reports it is not complete")
    void maxRunsBoundsOneCall() {
        insertFinished(25, RunStatus.CANCELLED, Duration.ofDays(10));

        PruneResult first = runlane.template()
                .runs()
                .prune(PruneRequest.olderThan(Duration.ofDays(1))
                        .withBatchSize(10)
                        .withMaxRuns(15));
        PruneResult second = runlane.template()
                .runs()
                .prune(PruneRequest.olderThan(Duration.ofDays(1))
                        .withBatchSize(10)
                        .withMaxRuns(15));

        assertThat(first.runs()).isEqualTo(15);
        assertThat(first.complete()).isFalse();
        assertThat(second.runs()).isEqualTo(10);
        assertThat(second.complete()).isTrue();
        assertThat(count("runs")).isZero();
    }

    @Test
    @DisplayName("S-OP-3: active statuses are rejected before anything is touched")
    void activeStatusesAreRejected() {
        insertFinished(5, RunStatus.SUCCEEDED, Duration.ofDays(10));

        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> runlane.template()
                        .runs()
                        .prune(PruneRequest.olderThan(Duration.ZERO)
                                .withStatuses(RunStatus.SUCCEEDED, RunStatus.QUEUED)))
                .withMessageContaining("QUEUED");
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> PruneRequest.olderThan(Duration.ofDays(-1)));
        assertThat(count("runs")).isEqualTo(5);
    }

    @Test
    @DisplayName("S-IK-9: the job keeps a retained owner, an explicit prune removes it and frees its key")
    void retainedOwnerSurvivesTheJobButNotAnExplicitPrune() {
        String customer = "c-" + UUID.randomUUID();
        TriggerResult owner = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);
        runlane.age(owner.runId(), Duration.ofHours(2));

        long pruned =
                pruningJob(Map.of(RunStatus.SUCCEEDED, Duration.ofHours(1))).pruneOnce();

        assertThat(pruned).isZero();
        assertThat(runlane.template().runs().get(owner.runId())).isPresent();
        assertThat(runlane.template()
                        .trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer))
                        .runId())
                .isEqualTo(owner.runId());

        PruneResult explicit = runlane.template().runs().prune(PruneRequest.olderThan(Duration.ofHours(1)));

        assertThat(explicit.runs()).isOne();
        assertThat(runlane.hasKeyRow("customers.refresh", "refresh." + customer))
                .isFalse();
        assertThat(runlane.template()
                        .trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer))
                        .created())
                .isTrue();
    }

    @Test
    @DisplayName("S-OP-4, S-IK-9, S-IK-10: the job prunes a run once its key's retention expired, and keeps a run"
            + " younger than its status retention even when its key's retention expired")
    void jobPrunesAfterRetention() {
        String customer = "c-" + UUID.randomUUID();
        TriggerResult owner = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customer));
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);
        runlane.age(owner.runId(), Duration.ofDays(2));
        String other = "c-" + UUID.randomUUID();
        TriggerResult young = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(other));
        runlane.finish(young.runId(), RunStatus.SUCCEEDED);
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema()
                                + ".runs SET idempotency_key_ttl_ms = 1, finished_at = now() - interval '1 second'"
                                + " WHERE id = ?",
                        young.runId());

        long pruned =
                pruningJob(Map.of(RunStatus.SUCCEEDED, Duration.ofDays(1))).pruneOnce();

        assertThat(pruned).isOne();
        assertThat(runlane.template().runs().get(owner.runId())).isEmpty();
        assertThat(runlane.template().runs().get(young.runId()))
                .as("younger than its retention")
                .isPresent();
        assertThat(runlane.template()
                        .trigger(RefreshCustomer.class, new RefreshCustomer.Payload(other))
                        .created())
                .as("the expired key is free for a new run")
                .isTrue();
    }

    @Test
    @DisplayName("S-OP-4: two pruners at once take disjoint batches, never deadlock, and delete everything once")
    void twoPrunersAtOnce() {
        insertFinished(5_000, RunStatus.SUCCEEDED, Duration.ofDays(10));

        List<Concurrently.Outcome<PruneResult>> outcomes = Concurrently.run(
                2,
                i -> () -> runlane.template()
                        .runs()
                        .prune(PruneRequest.olderThan(Duration.ofDays(1)).withBatchSize(200)));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(outcomes.stream()
                        .mapToLong(outcome -> outcome.value().runs())
                        .sum())
                .isEqualTo(5_000);
        assertThat(count("runs")).isZero();
        assertThat(count("run_events")).isZero();
    }

    @Test
    @DisplayName("S-OP-4: 200,000 finished runs are pruned in bounded batches while triggers continue")
    void largePruneWhileTriggersContinue() throws Exception {
        insertFinished(200_000, RunStatus.SUCCEEDED, Duration.ofDays(10));
        List<Long> quiet = triggerLatencies(300, new AtomicBoolean(true));

        AtomicBoolean pruning = new AtomicBoolean(true);
        CompletableFuture<List<Long>> during =
                CompletableFuture.supplyAsync(() -> triggerLatencies(Integer.MAX_VALUE, pruning));
        PruneResult result;
        try {
            result = runlane.template()
                    .runs()
                    .prune(PruneRequest.olderThan(Duration.ofDays(1)).withBatchSize(1000));
        } finally {
            pruning.set(false);
        }
        List<Long> busy = during.get();

        assertThat(result.runs()).isEqualTo(200_000);
        assertThat(result.batches())
                .as("batches of at most 1,000 SUCCEEDED runs (S-OP-11 may make them smaller), then one empty batch"
                        + " for each terminal status")
                .isGreaterThanOrEqualTo(203);
        assertThat(count("runs")).isEqualTo(quiet.size() + busy.size());
        System.out.printf(
                "Trigger latency p99 without pruning: %.2f ms (%d triggers); during pruning of 200,000 runs: %.2f ms"
                        + " (%d triggers)%n",
                p99(quiet), quiet.size(), p99(busy), busy.size());
        assertThat(busy).isNotEmpty();
    }

    private List<Long> triggerLatencies(int max, AtomicBoolean keepGoing) {
        List<Long> nanos = new ArrayList<>();
        while (keepGoing.get() && nanos.size() < max) {
            long started = System.nanoTime();
            runlane.template().trigger("mail.send", new SendMail.Payload("during-prune"));
            nanos.add(System.nanoTime() - started);
        }
        return nanos;
    }

    private static double p99(List<Long> nanos) {
        List<Long> sorted = nanos.stream().sorted().toList();
        return sorted.get((int) Math.floor(0.99 * (sorted.size() - 1))) / 1e6;
    }

    @Test
    @DisplayName("S-OP-4: the job honours per-status retention")
    void perStatusRetention() {
        insertFinished(3, RunStatus.SUCCEEDED, Duration.ofDays(8));
        insertFinished(4, RunStatus.FAILED, Duration.ofDays(8));
        insertFinished(5, RunStatus.CANCELLED, Duration.ofDays(8));

        long pruned = pruningJob(PruningSettings.defaults().retention()).pruneOnce();

        assertThat(pruned).isEqualTo(3 + 5);
        assertThat(count("runs")).isEqualTo(4);
    }
}

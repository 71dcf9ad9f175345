package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.PruneRequest;
import io.runlane.PruneResult;
import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.maintenance.RunPruner;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import io.runlane.testsupport.TestTasks.SendMail;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A prune reports runs it skipped because another transaction held them (S-OP-8), and the automatic job does not
 * read the same kept runs again on every tick (S-OP-10).
 */
@RunlaneDatabaseTest
class PruneProgressIntegrationTests {

    @Pool(size = 6)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("prune_progress") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    /** A finished run of a task without keys, finished {@code age} ago. */
    private UUID finishedMail(Duration age) {
        UUID runId = runlane.template()
                .trigger("mail.send", new SendMail.Payload("x@example.com"))
                .runId();
        runlane.finish(runId, RunStatus.SUCCEEDED);
        runlane.age(runId, age);
        return runId;
    }

    /** A finished owner of an idempotency key retained for {@code ttl} from now, finished two hours ago. */
    private UUID finishedRetainedOwner(Duration ttl) {
        UUID runId = runlane.template()
                .trigger(
                        "customers.refresh",
                        new RefreshCustomer.Payload("c-" + UUID.randomUUID()),
                        TriggerOptions.builder()
                                .idempotencyKeyTtl(IdempotencyKeyTtl.of(ttl))
                                .build())
                .runId();
        runlane.finish(runId, RunStatus.SUCCEEDED);
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET finished_at = finished_at - interval '2 hours',"
                                + " idempotency_key_ttl_ms = idempotency_key_ttl_ms + 7200000 WHERE id = ?",
                        runId);
        return runId;
    }

    private PruningService job() {
        return new PruningService(
                new RunPruner(JdbcClient.create(dataSource), new SqlTemplate(runlane.schema()), "default"),
                Map.of(RunStatus.SUCCEEDED, Duration.ofHours(1)),
                Duration.ofMinutes(1),
                100,
                Duration.ofMinutes(1),
                EngineListener.NONE);
    }

    /** Holds a row lock on the run, in a transaction on its own connection, until the connection is closed. */
    private Connection lock(UUID runId) throws Exception {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        try (PreparedStatement select =
                connection.prepareStatement("SELECT id FROM " + runlane.schema() + ".runs WHERE id = ? FOR UPDATE")) {
            select.setObject(1, runId);
            select.executeQuery().close();
        }
        return connection;
    }

    private static void release(Connection connection) throws Exception {
        connection.rollback();
        connection.close();
    }

    private boolean exists(UUID runId) {
        return runlane.template().runs().get(runId).isPresent();
    }

    @Test
    @DisplayName("Finding 17, S-OP-8: a prune that skipped a locked run reports complete=false, and true once done")
    void pruneThatSkippedALockedRunIsIncomplete() throws Exception {
        List<UUID> runs = IntStream.range(0, 10)
                .mapToObj(i -> finishedMail(Duration.ofDays(10).plusMinutes(10 - i)))
                .toList();
        UUID oldest = runs.get(0);
        Connection holder = lock(oldest);

        PruneResult whileLocked;
        try {
            whileLocked = runlane.template()
                    .runs()
                    .prune(PruneRequest.olderThan(Duration.ofDays(1)).withBatchSize(3));
        } finally {
            release(holder);
        }
        PruneResult afterwards = runlane.template()
                .runs()
                .prune(PruneRequest.olderThan(Duration.ofDays(1)).withBatchSize(3));

        assertThat(whileLocked.runs()).isEqualTo(9);
        assertThat(whileLocked.complete()).as("the locked run was skipped").isFalse();
        assertThat(exists(oldest)).isFalse();
        assertThat(afterwards.runs()).isOne();
        assertThat(afterwards.complete()).isTrue();
    }

    @Test
    @DisplayName("S-OP-8: a batch whose every run is locked and finished at one time does not stall the prune")
    void batchOfLockedRunsSharingAFinishTimeIsPassed() throws Exception {
        List<UUID> runs = IntStream.range(0, 5)
                .mapToObj(i -> finishedMail(Duration.ofDays(10)))
                .toList();
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET finished_at = now() - interval '10 days'"
                                + " WHERE id = ANY(?)",
                        (Object) runs.toArray(UUID[]::new));
        UUID later = finishedMail(Duration.ofDays(9));
        Connection first = lock(runs.get(0));
        Connection second = lock(runs.get(1));

        PruneResult whileLocked;
        try {
            whileLocked = runlane.template()
                    .runs()
                    .prune(PruneRequest.olderThan(Duration.ofDays(1)).withBatchSize(2));
        } finally {
            release(first);
            release(second);
        }
        PruneResult afterwards = runlane.template()
                .runs()
                .prune(PruneRequest.olderThan(Duration.ofDays(1)).withBatchSize(2));

        assertThat(whileLocked.complete()).isFalse();
        assertThat(exists(later)).as("the prune went on past the locked batch").isFalse();
        assertThat(afterwards.complete()).isTrue();
        assertThat(runs).noneMatch(this::exists);
    }

    @Test
    @DisplayName("Finding 17, S-OP-10: the job's next tick does not read again the retained runs a tick passed over")
    void jobDoesNotRereadKeptRuns() {
        IntStream.range(0, 5).forEach(i -> finishedRetainedOwner(Duration.ofDays(1)));
        PruningService job = job();

        long firstPruned = job.pruneOnce();
        long firstScanned = job.lastScanned();
        long secondPruned = job.pruneOnce();
        long secondScanned = job.lastScanned();
        UUID newlyPrunable = finishedMail(Duration.ofHours(2));
        long thirdPruned = job.pruneOnce();

        assertThat(firstPruned).isZero();
        assertThat(firstScanned).as("the first tick reads the five kept runs").isEqualTo(5);
        assertThat(secondPruned).isZero();
        assertThat(secondScanned).as("the second tick resumes after them").isZero();
        assertThat(thirdPruned).isOne();
        assertThat(job.lastScanned()).isOne();
        assertThat(exists(newlyPrunable)).isFalse();
    }

    @Test
    @DisplayName("Finding 17, S-OP-10: the job comes back for a kept run once its retention has passed")
    void jobRevisitsAKeptRunOnceItsRetentionPassed() {
        UUID kept = finishedRetainedOwner(Duration.ofSeconds(2));
        PruningService job = job();

        assertThat(job.pruneOnce()).isZero();

        await().atMost(Duration.ofSeconds(20)).until(() -> job.pruneOnce() == 1);
        assertThat(exists(kept)).isFalse();
    }

    @Test
    @DisplayName("Finding 17, S-OP-8, S-OP-10: the job comes back for a run it skipped because it was locked")
    void jobRevisitsARunItSkippedBecauseLocked() throws Exception {
        UUID older = finishedMail(Duration.ofDays(3));
        UUID newer = finishedMail(Duration.ofDays(2));
        PruningService job = job();
        Connection holder = lock(older);
        long first;
        try {
            first = job.pruneOnce();
        } finally {
            release(holder);
        }

        long second = job.pruneOnce();

        assertThat(first).isOne();
        assertThat(exists(newer)).isFalse();
        assertThat(second).isOne();
        assertThat(exists(older)).isFalse();
    }
}

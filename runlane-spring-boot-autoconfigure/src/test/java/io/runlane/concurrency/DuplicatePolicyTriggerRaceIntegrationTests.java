package io.runlane.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A duplicate trigger writes nothing, whatever its singleton conflict policy (S-TR-1, S-SK-3, S-IK-7): a trigger
 * refused by a singleton holder, whose idempotency key another trigger takes before the policy acts, returns that
 * trigger's run as {@code RETURNED_EXISTING} instead of cancelling it ({@code SUPERSEDE}), signalling it ({@code
 * SIGNAL_OWNER}) or returning it as the singleton's owner ({@code RETURN_OWNER}). Each race is opened on purpose: a
 * transaction of another connection holds a lock that stops the triggers at the right statement, and lets them go
 * once the stage is set.
 */
@RunlaneDatabaseTest
class DuplicatePolicyTriggerRaceIntegrationTests {

    /** Holds its singleton key; its handler never runs (no worker is started). */
    @Task(id = "race.order")
    public static class Order implements TaskHandler<Order.Payload> {

        public record Payload(String key, String item) {}

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

    private ExecutorService threads;

    @BeforeEach
    void start(@FreshSchema("policy_races") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new Order());
        threads = Executors.newFixedThreadPool(4);
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        runlane.stop();
    }

    private TriggerResult order(String key, String item, TriggerOptions options) {
        return runlane.template().trigger("race.order", new Order.Payload(key, item), options);
    }

    private <T> CompletableFuture<T> onAnotherThread(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, threads);
    }

    private static TriggerOptions.Builder policy(SingletonConflictPolicy policy, String idempotencyKey) {
        TriggerOptions.Builder options =
                TriggerOptions.builder().onSingletonConflict(policy).idempotencyKey(idempotencyKey);
        return policy == SingletonConflictPolicy.SIGNAL_OWNER ? options.signalName("line") : options;
    }

    private long runsOf(String singletonKey) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE singleton_key = ?",
                        Long.class,
                        singletonKey);
    }

    @Test
    @DisplayName("S-TR-1, S-SK-3, S-IK-7: two SUPERSEDE triggers with one idempotency key, refused together by a"
            + " holder whose row was locked, create one run; the duplicate returns it still active and cancels"
            + " nothing (with a retained and with an 'active' key)")
    void duplicateSupersedeTriggersCreateOneRunAndCancelOnlyTheHolder() {
        for (int round = 0; round < 10; round++) {
            String key = "supersede-" + round;
            TriggerOptions.Builder options = policy(SingletonConflictPolicy.SUPERSEDE, "request-" + round);
            if (round % 2 == 1) {
                options.idempotencyKeyTtl(IdempotencyKeyTtl.active());
            }
            UUID holder = order(key, "holder", TriggerOptions.none()).runId();

            List<TriggerResult> results;
            try (OpenTransaction lockedHolder = new OpenTransaction(
                    "UPDATE " + runlane.schema() + ".runs SET updated_at = updated_at WHERE id = '" + holder + "'")) {
                List<CompletableFuture<TriggerResult>> duplicates = List.of(
                        onAnotherThread(() -> order(key, "first", options.build())),
                        onAnotherThread(() -> order(key, "second", options.build())));
                lockedHolder.awaitBlocked(2);
                lockedHolder.commit();
                results = duplicates.stream().map(CompletableFuture::join).toList();
            }

            assertThat(results)
                    .as("round %d", round)
                    .filteredOn(TriggerResult::created)
                    .hasSize(1);
            assertThat(results)
                    .as("round %d", round)
                    .extracting(TriggerResult::outcome)
                    .containsExactlyInAnyOrder(TriggerOutcome.CREATED, TriggerOutcome.RETURNED_EXISTING);
            UUID created = results.get(0).runId();
            assertThat(results).extracting(TriggerResult::runId).containsOnly(created);
            assertThat(runlane.run(created).status()).as("round %d", round).isEqualTo(RunStatus.QUEUED);
            assertThat(runlane.run(holder).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(runlane.template().runs().events(holder))
                    .extracting(RunEvent::detail)
                    .contains("superseded by " + created);
            assertThat(runsOf(key)).as("round %d", round).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("S-TR-1, S-SK-3, S-CP-4: a SIGNAL_OWNER trigger refused by a holder that ends before the signal is"
            + " sent, whose idempotency key a duplicate then takes with a new run, returns that run and signals"
            + " nothing")
    void signalOwnerTriggerWhoseKeyWasTakenMeanwhileReturnsTheNewRun() {
        for (int round = 0; round < 4; round++) {
            String key = "signal-" + round;
            TriggerOptions options = policy(SingletonConflictPolicy.SIGNAL_OWNER, "request-" + round)
                    .build();
            UUID holder = order(key, "holder", TriggerOptions.none()).runId();

            TriggerResult first;
            TriggerResult duplicate;
            try (OpenTransaction signalsLocked =
                    new OpenTransaction("LOCK TABLE " + runlane.schema() + ".run_signals IN EXCLUSIVE MODE")) {
                CompletableFuture<TriggerResult> refused = onAnotherThread(() -> order(key, "first", options));
                signalsLocked.awaitBlocked(1);
                runlane.template().runs().cancel(holder, "test");
                duplicate = order(key, "duplicate", options);
                signalsLocked.commit();
                first = refused.join();
            }

            assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.CREATED);
            assertThat(first.outcome()).as("round %d", round).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
            assertThat(first.runId()).isEqualTo(duplicate.runId());
            assertThat(runlane.template().runs().signals(duplicate.runId())).isEmpty();
        }
    }

    @Test
    @DisplayName("S-TR-1, S-SK-3, S-CP-2: a RETURN_OWNER batch item refused by a holder that ends before the policy"
            + " acts, whose idempotency key a duplicate then takes with a new run, returns that run as"
            + " RETURNED_EXISTING")
    void returnOwnerItemWhoseKeyWasTakenMeanwhileReturnsTheNewRunAsExisting() {
        for (int round = 0; round < 4; round++) {
            String key = "b-return-" + round;
            String pauseKey = "a-pause-" + round;
            TriggerOptions options = policy(SingletonConflictPolicy.RETURN_OWNER, "request-" + round)
                    .build();
            TriggerOptions pause = policy(SingletonConflictPolicy.SIGNAL_OWNER, "pause-" + round)
                    .build();
            UUID holder = order(key, "holder", TriggerOptions.none()).runId();
            UUID signalled = order(pauseKey, "holder", TriggerOptions.none()).runId();

            List<TriggerResult> batch;
            TriggerResult duplicate;
            try (OpenTransaction signalsLocked =
                    new OpenTransaction("LOCK TABLE " + runlane.schema() + ".run_signals IN EXCLUSIVE MODE")) {
                // the policies act in singleton key order: the signal to pauseKey's holder, which waits for the
                // lock, comes before the RETURN_OWNER item
                CompletableFuture<List<TriggerResult>> refused = onAnotherThread(() -> runlane.template()
                        .triggerAll(List.of(
                                TriggerRequest.of("race.order", new Order.Payload(key, "first"), options),
                                TriggerRequest.of("race.order", new Order.Payload(pauseKey, "line"), pause))));
                signalsLocked.awaitBlocked(1);
                runlane.template().runs().cancel(holder, "test");
                duplicate = order(key, "duplicate", options);
                signalsLocked.commit();
                batch = refused.join();
            }

            assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.CREATED);
            assertThat(batch)
                    .as("round %d", round)
                    .extracting(TriggerResult::outcome)
                    .containsExactly(TriggerOutcome.RETURNED_EXISTING, TriggerOutcome.SIGNALED_SINGLETON_OWNER);
            assertThat(batch.get(0).runId()).isEqualTo(duplicate.runId());
            assertThat(batch.get(1).runId()).isEqualTo(signalled);
        }
    }

    /**
     * A transaction on a connection of its own, which holds the locks its statements took until {@link #commit()}:
     * the triggers that need them wait meanwhile.
     */
    private final class OpenTransaction implements AutoCloseable {

        private final HikariDataSource pool = TestDatabase.newDataSource(1);

        private final Connection connection;

        private final int pid;

        OpenTransaction(String statement) {
            try {
                connection = pool.getConnection();
                connection.setAutoCommit(false);
                try (Statement sql = connection.createStatement()) {
                    sql.execute(statement);
                    try (var rs = sql.executeQuery("SELECT pg_backend_pid()")) {
                        rs.next();
                        pid = rs.getInt(1);
                    }
                }
            } catch (SQLException ex) {
                pool.close();
                throw new IllegalStateException(ex);
            }
        }

        /** Waits until {@code backends} sessions wait for this transaction's locks. */
        void awaitBlocked(int backends) {
            await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> runlane.jdbc()
                                    .queryForObject(
                                            "SELECT count(*) FROM pg_stat_activity"
                                                    + " WHERE ? = ANY(pg_blocking_pids(pid))",
                                            Long.class,
                                            pid),
                            waiting -> waiting >= backends);
        }

        void commit() {
            try {
                connection.commit();
            } catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        }

        @Override
        public void close() {
            try {
                connection.rollback();
                connection.close();
            } catch (SQLException ex) {
                throw new IllegalStateException(ex);
            } finally {
                pool.close();
            }
        }
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What a worker does about outcomes a failover lost (issue 26): a run whose row vanished under its attempt is reported
 * apart from a lost lease (S-EX-31), and a run still leased to the worker though its outcome was lost is handed to
 * recovery as soon as the outage ends, not a lease later (S-EX-32).
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class OutageReconcileIntegrationTests {

    static final Map<UUID, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    static volatile JdbcTemplate admin;

    static volatile String schema;

    /** Deletes its own run while it runs when asked to, as a failover that lost the run's row would. */
    @Task(id = "reconcile.vanishing")
    public static class Vanishing implements TaskHandler<Vanishing.Payload> {

        public record Payload(boolean delete, boolean fail) {}

        @Override
        public void run(Payload payload, RunContext context) {
            CALLS.computeIfAbsent(context.runId(), id -> new AtomicInteger()).incrementAndGet();
            if (payload.delete()) {
                admin.update("DELETE FROM " + schema + ".runs WHERE id = ?", context.runId());
            }
            if (payload.fail()) {
                throw new IllegalStateException("failed after its run vanished");
            }
        }
    }

    private final List<String> results = new CopyOnWriteArrayList<>();

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        admin = new JdbcTemplate(dataSource);
        schema = TestDatabase.freshSchema(dataSource, "reconcile");
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults()
                                .withWorker(2, Duration.ofMillis(50))
                                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(20)),
                        new EngineListener() {
                            @Override
                            public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
                                results.add(result);
                            }
                        },
                        new Vanishing())
                .startWorker();
    }

    @AfterEach
    void stop() {
        runlane.stop();
        admin.execute("DROP SCHEMA IF EXISTS " + schema + "_away CASCADE");
    }

    @Test
    @DisplayName(
            "S-EX-31: an outcome refused because its run no longer exists is logged as lost data and counted apart")
    void outcomeOfAVanishedRunIsReportedApart(CapturedOutput output) {
        runlane.template().trigger("reconcile.vanishing", new Vanishing.Payload(true, false));
        runlane.template().trigger("reconcile.vanishing", new Vanishing.Payload(true, true));

        await().atMost(Duration.ofSeconds(30)).until(() -> results.size() == 2);
        assertThat(results).containsOnly("run_missing");
        assertThat(output.getOut())
                .contains("Completion of run")
                .contains("Outcome 'retried' of run")
                .contains("the run no longer exists")
                .doesNotContain("lease lost or run cancelled");
    }

    @Test
    @DisplayName("S-EX-32: after an outage a run leased to the worker whose completion was lost is retried at once")
    void lostCompletionIsRecoveredAfterTheOutage(CapturedOutput output) {
        UUID runId = runlane.template()
                .trigger("reconcile.vanishing", new Vanishing.Payload(false, false))
                .runId();
        await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId).status(), RunStatus.SUCCEEDED::equals);
        RunWorker worker = runlane.engine().worker();
        // the completion's commit is lost, as an unreplicated commit is when the primary fails over: the run is
        // RUNNING again under this worker's hour-long lease, claimed two minutes ago
        admin.update("DELETE FROM " + schema + ".run_events WHERE run_id = ? AND type = 'SUCCEEDED'", runId);
        admin.update(
                "UPDATE " + schema + ".runs SET status = 'RUNNING', finished_at = NULL, result = NULL,"
                        + " lease_owner = ?, lease_expires_at = now() + interval '1 hour',"
                        + " updated_at = now() - interval '2 minutes', last_event_seq = last_event_seq - 1"
                        + " WHERE id = ?",
                worker.workerId(),
                runId);

        admin.execute("ALTER SCHEMA " + schema + " RENAME TO " + schema + "_away");
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.pollFailuresInARow() >= 2);
        admin.execute("ALTER SCHEMA " + schema + "_away RENAME TO " + schema);

        await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId).status(), RunStatus.SUCCEEDED::equals);
        assertThat(CALLS.get(runId)).hasValue(2);
        assertThat(runlane.run(runId).attempts()).isEqualTo(2);
        assertThat(output.getOut()).contains("were not in its hands after an outage");
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-4: a task's own exponential backoff, through a real worker, measured on the database clock. */
@RunlaneDatabaseTest
class ExponentialBackoffIntegrationTests {

    /** Fails every time; retries after 1h, 3h, 5h (9h capped), 5h. */
    @Task(id = "backoff.exponential", maxAttempts = 5, backoff = "1h", backoffMultiplier = 3, maxBackoff = "5h")
    public static class AlwaysFailing implements TaskHandler<String> {

        @Override
        public void run(String payload, RunContext context) {
            throw new IllegalStateException("try again");
        }
    }

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("exp_backoff") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults()
                                .withWorker(2, Duration.ofMillis(100))
                                .withBackoff(Duration.ofSeconds(1), Duration.ofMinutes(1)),
                        EngineListener.NONE,
                        new AlwaysFailing())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static Run awaitStatus(UUID runId, RunStatus status, int attempts) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> runlane.run(runId), run -> run.status() == status && run.attempts() == attempts);
    }

    /** Makes a RETRYING run due now, as if its backoff had passed on the database clock. */
    private static void backoffPassed(UUID runId) {
        runlane.jdbc().update("UPDATE " + runlane.schema() + ".runs SET run_at = now() WHERE id = ?", runId);
        runlane.engine().worker().wake();
    }

    @Test
    @DisplayName("Finding 18, S-EX-4: a task's exponential backoff multiplies its delays up to its own maximum")
    void taskExponentialBackoffThroughTheWorker() {
        UUID runId =
                runlane.template().trigger("backoff.exponential", "payload").runId();

        List<Duration> delays = new ArrayList<>();
        for (int attempt = 1; attempt <= 4; attempt++) {
            Run retrying = awaitStatus(runId, RunStatus.RETRYING, attempt);
            // run_at and updated_at are both set from the failing statement's database time.
            delays.add(Duration.between(retrying.updatedAt(), retrying.runAt()));
            backoffPassed(runId);
        }
        awaitStatus(runId, RunStatus.FAILED, 5);

        assertThat(delays)
                .containsExactly(Duration.ofHours(1), Duration.ofHours(3), Duration.ofHours(5), Duration.ofHours(5));
    }
}

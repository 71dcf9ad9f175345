package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.autoconfigure.actuate.RunlaneHealthIndicator;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** S-MO-5: the health check answers within its own time-out while the database does not answer. */
@RunlaneDatabaseTest
class RunlaneHealthTimeoutIntegrationTests {

    @Pool(size = 1)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private Connection held;

    @BeforeEach
    void start(@FreshSchema("health_timeout") String schema) throws Exception {
        dataSource.setConnectionTimeout(Duration.ofSeconds(60).toMillis());
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults(),
                EngineListener.NONE,
                new TestTasks.ConfirmOrder());
    }

    @AfterEach
    void stop() throws Exception {
        if (held != null) {
            held.close();
        }
    }

    private RunlaneHealthIndicator indicator(Duration timeout) {
        return new RunlaneHealthIndicator(
                runlane.engine().statistics(),
                List.copyOf(runlane.engine().settings().queues()),
                null,
                null,
                null,
                Duration.ofMinutes(1),
                () -> true,
                timeout);
    }

    @Test
    @DisplayName("Finding 13, S-MO-5: while the pool has no connection to give, health answers DOWN within its time-out"
            + " instead of waiting for the pool's connection timeout")
    void healthAnswersDownWithinItsTimeoutWhenNoConnectionIsAvailable() throws Exception {
        RunlaneHealthIndicator indicator = indicator(Duration.ofMillis(500));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
        held = dataSource.getConnection();

        // The pool would make the statistics query wait 60 s for a connection.
        Health down = await().atMost(Duration.ofSeconds(10)).until(indicator::health, health -> true);
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(down.getDetails().get("error").toString())
                .contains("did not answer within the health time-out of PT0.5S")
                .contains("runlane.health.timeout");

        Health stillDown = await().atMost(Duration.ofSeconds(10)).until(indicator::health, health -> true);
        assertThat(stillDown.getStatus())
                .as("a second check while the first query still waits")
                .isEqualTo(Status.DOWN);

        held.close();
        held = null;
        await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health().getStatus() == Status.UP);
    }
}

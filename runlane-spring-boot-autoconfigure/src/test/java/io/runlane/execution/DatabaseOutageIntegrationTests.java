package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
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
 * A worker whose schema disappears (not migrated yet, or the database is away) keeps polling with a backoff, warns
 * once for the whole outage without a stack trace, and says once that it recovered (issue 15, item 6).
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class DatabaseOutageIntegrationTests {

    @Pool(size = 4)
    private HikariDataSource dataSource;

    private JdbcTemplate admin;

    private TestRunlane runlane;

    @FreshSchema("outage")
    private String schema;

    @BeforeEach
    void startWorker() {
        admin = new JdbcTemplate(dataSource);
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(20)),
                        EngineListener.NONE,
                        new ConfirmOrder())
                .startWorker();
    }

    @AfterEach
    void stop() {
        runlane.stop();
        admin.execute("DROP SCHEMA IF EXISTS " + schema + "_away CASCADE");
    }

    @Test
    @DisplayName("Issue 15.6: an outage of many failed polls logs one warning, no stack trace, and one recovery line")
    void outageIsLoggedOnceAndItsRecoveryOnce(CapturedOutput output) {
        RunWorker worker = runlane.engine().worker();
        admin.execute("ALTER SCHEMA " + schema + " RENAME TO " + schema + "_away");

        await().atMost(Duration.ofSeconds(30)).until(() -> worker.pollFailuresInARow() >= 4);
        assertThat(worker.lastPollFailure()).isNotNull();

        admin.execute("ALTER SCHEMA " + schema + "_away RENAME TO " + schema);
        await().atMost(Duration.ofSeconds(60)).until(() -> worker.pollFailuresInARow() == 0);
        await().atMost(Duration.ofSeconds(5)).until(() -> output.getOut().contains("Claiming runs recovered"));

        String log = output.getOut();
        assertThat(occurrences(log, "Claiming runs failed")).isEqualTo(1);
        assertThat(log).contains("Runlane's schema is not applied");
        assertThat(occurrences(log, "Claiming runs recovered after")).isEqualTo(1);
        assertThat(log).doesNotContain("\tat ").doesNotContain(" ERROR ");
        assertThat(worker.lastPollFailure()).isNull();
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}

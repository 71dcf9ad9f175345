package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.NonRetryableException;
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
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A run that ends {@code FAILED} for good gets one line saying so, apart from its attempts' lines (S-EX-33). */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class FinalFailureLogIntegrationTests {

    @Task(id = "final.failure", maxAttempts = 2)
    public static class Failing implements TaskHandler<Failing.Payload> {

        public record Payload(String mode) {}

        @Override
        public void run(Payload payload, RunContext context) {
            switch (payload.mode()) {
                case "fatal" -> throw new NonRetryableException("cannot go on");
                case "always" -> throw new IllegalStateException("broken");
                case "once" -> {
                    if (context.attempt() == 1) {
                        throw new IllegalStateException("first attempt breaks");
                    }
                }
                default -> {}
            }
        }
    }

    @Pool(size = 6)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("final_failure") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults()
                                .withWorker(2, Duration.ofMillis(50))
                                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(20)),
                        EngineListener.NONE,
                        new Failing())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static UUID runToTheEnd(String mode) {
        UUID runId = runlane.template()
                .trigger("final.failure", new Failing.Payload(mode))
                .runId();
        await().atMost(Duration.ofSeconds(30)).until(() -> runlane.run(runId).status(), RunStatus::isTerminal);
        return runId;
    }

    private static long lines(String log, String text) {
        return log.lines().filter(line -> line.contains(text)).count();
    }

    @Test
    @DisplayName(
            "S-EX-33: a run failed at once, and one whose budget ran out, each get one FAILED line; a retried success none")
    void finalFailuresAreLoggedOnce(CapturedOutput output) {
        UUID fatal = runToTheEnd("fatal");
        UUID spent = runToTheEnd("always");
        UUID recovered = runToTheEnd("once");

        await().atMost(Duration.ofSeconds(5)).until(() -> lines(output.getOut(), "Run " + spent + " of task") == 1);
        String log = output.getOut();
        assertThat(lines(log, "Run " + fatal + " of task 'final.failure' FAILED after 1 of 2 attempt(s)"))
                .isOne();
        assertThat(lines(log, "Run " + spent + " of task 'final.failure' FAILED after 2 of 2 attempt(s) with code"))
                .isOne();
        assertThat(lines(log, "Run " + recovered + " of task")).isZero();
        assertThat(runlane.run(recovered).status()).isEqualTo(RunStatus.SUCCEEDED);
    }
}

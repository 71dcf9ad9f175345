package io.runlane.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample's embedded PostgreSQL keeps its data across restarts (issue 31, item 7): a run triggered before a
 * restart is there after it, and its idempotency key still returns it; {@code sample.postgres.wipe=true} starts
 * empty. No worker runs, so the run stays as it was triggered.
 */
class SampleDataDirectoryIntegrationTests {

    @Test
    @DisplayName("Issue 31.7: a run and its key survive a restart of the sample; wipe=true starts it empty")
    void runsSurviveARestartUntilWiped(@TempDir Path directory) {
        Path data = directory.resolve("postgres");
        UUID runId;
        try (ConfigurableApplicationContext first = start(data, false)) {
            TriggerResult triggered =
                    first.getBean(RunlaneTemplate.class).trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-7"));
            assertThat(triggered.outcome()).isEqualTo(TriggerOutcome.CREATED);
            runId = triggered.runId();
        }

        try (ConfigurableApplicationContext restarted = start(data, false)) {
            RunlaneTemplate runlane = restarted.getBean(RunlaneTemplate.class);
            assertThat(runlane.runs().get(runId))
                    .hasValueSatisfying(run -> assertThat(run.status()).isEqualTo(RunStatus.QUEUED));
            TriggerResult again = runlane.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-7"));
            assertThat(again.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
            assertThat(again.runId()).isEqualTo(runId);
        }

        try (ConfigurableApplicationContext wiped = start(data, true)) {
            assertThat(wiped.getBean(RunlaneTemplate.class).runs().get(runId)).isEmpty();
        }
    }

    private static ConfigurableApplicationContext start(Path data, boolean wipe) {
        return new SpringApplicationBuilder(RunlaneSampleApplication.class)
                .run(
                        "--server.port=0",
                        "--runlane.worker.enabled=false",
                        "--sample.postgres.data-directory=" + data,
                        "--sample.postgres.wipe=" + wipe);
    }
}

package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.SendMail;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-OP-9, S-QC-3: a rerun or retry stays in its source's partition unless the options name another. */
@RunlaneDatabaseTest
class RerunPartitionIntegrationTests {

    private static final String LIMITED = "limited";

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("rerun_partition") String schema) {
        runlane = TestRunlane.start(
                dataSource, schema, settings -> settings.withQueues(Set.of(LIMITED, "other")), TestTasks.all());
    }

    /** A finished run of the default-queue task that was triggered into queue {@code limited} with key {@code k}. */
    private static Run finishedInLimitedPartition(RunStatus status) {
        Run run = runlane.template()
                .trigger(
                        "mail.send",
                        new SendMail.Payload("a@example.com"),
                        TriggerOptions.builder()
                                .queue(LIMITED)
                                .concurrencyKey("k")
                                .build())
                .run();
        return runlane.finish(run.id(), status);
    }

    @Test
    @DisplayName("Finding 16, S-OP-9, S-QC-3: a rerun keeps its source's queue and concurrency key")
    void rerunKeepsTheSourcesQueueAndConcurrencyKey() {
        Run source = finishedInLimitedPartition(RunStatus.SUCCEEDED);

        Run rerun = runlane.template().runs().rerun(source.id());

        assertThat(rerun.queue()).isEqualTo(LIMITED);
        assertThat(rerun.concurrencyKey()).isEqualTo("k");
    }

    @Test
    @DisplayName("Finding 16, S-OP-9, S-QC-3: a retry keeps its source's queue and concurrency key")
    void retryKeepsTheSourcesQueueAndConcurrencyKey() {
        Run source = finishedInLimitedPartition(RunStatus.FAILED);

        Run retry = runlane.template().runs().retry(source.id());

        assertThat(retry.queue()).isEqualTo(LIMITED);
        assertThat(retry.concurrencyKey()).isEqualTo("k");
    }

    @Test
    @DisplayName("Finding 16, S-OP-9: options override the inherited queue and concurrency key field by field")
    void optionsOverrideTheInheritedPartition() {
        Run source = finishedInLimitedPartition(RunStatus.FAILED);

        Run queueOverridden = runlane.template()
                .runs()
                .rerun(source.id(), TriggerOptions.builder().queue("other").build());
        Run keyOverridden = runlane.template()
                .runs()
                .retry(source.id(), TriggerOptions.builder().concurrencyKey("j").build());

        assertThat(queueOverridden.queue()).isEqualTo("other");
        assertThat(queueOverridden.concurrencyKey()).isEqualTo("k");
        assertThat(keyOverridden.queue()).isEqualTo(LIMITED);
        assertThat(keyOverridden.concurrencyKey()).isEqualTo("j");
    }
}

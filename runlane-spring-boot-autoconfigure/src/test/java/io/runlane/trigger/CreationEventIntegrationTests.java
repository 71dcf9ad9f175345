package io.runlane.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-RL-2: event 1 (created) is read off the run's row; a trigger stores no event row. */
@RunlaneDatabaseTest
class CreationEventIntegrationTests {

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("created") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static long storedEvents(UUID runId) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".run_events WHERE run_id = ?", Long.class, runId);
    }

    @Test
    @DisplayName("S-RL-2: a run due now starts with CREATED in QUEUED, at its creation time, by runlane")
    void runDueNowStartsQueued() {
        var run = runlane.template()
                .trigger("mail.send", new SendMail.Payload("now"))
                .run();

        assertThat(runlane.template().runs().events(run.id()))
                .singleElement()
                .isEqualTo(new RunEvent(
                        run.id(), 1, RunEventType.CREATED, RunStatus.QUEUED, run.createdAt(), "runlane", null));
        assertThat(storedEvents(run.id()))
                .as("no event row is written by a trigger")
                .isZero();
    }

    @Test
    @DisplayName("S-RL-2: a delayed run starts SCHEDULED, and stays so in its history after run_at moves")
    void delayedRunStartsScheduled() {
        var run = runlane.template()
                .trigger(
                        "mail.send",
                        new SendMail.Payload("later"),
                        TriggerOptions.builder().delay(Duration.ofHours(1)).build())
                .run();
        runlane.jdbc().update("UPDATE " + runlane.schema() + ".runs SET run_at = created_at WHERE id = ?", run.id());

        assertThat(runlane.template().runs().events(run.id())).singleElement().satisfies(event -> {
            assertThat(event.type()).isEqualTo(RunEventType.CREATED);
            assertThat(event.status()).isEqualTo(RunStatus.SCHEDULED);
        });
    }

    @Test
    @DisplayName("S-RL-2: runs of a batch trigger start with their creation event too")
    void batchRunsStartWithCreated() {
        List<UUID> ids = runlane
                .template()
                .triggerAll(List.of(
                        TriggerRequest.of("mail.send", new SendMail.Payload("b1")),
                        TriggerRequest.of(
                                "mail.send",
                                new SendMail.Payload("b2"),
                                TriggerOptions.builder()
                                        .delay(Duration.ofMinutes(5))
                                        .build())))
                .stream()
                .map(result -> result.runId())
                .toList();

        assertThat(ids)
                .extracting(id -> runlane.template().runs().events(id).get(0).status())
                .containsExactly(RunStatus.QUEUED, RunStatus.SCHEDULED);
        assertThat(ids).allSatisfy(id -> assertThat(storedEvents(id)).isZero());
    }

    @Test
    @DisplayName("S-RL-2: a stored event 1 (runs created before the change) is read as stored, never twice")
    void storedCreationEventIsReadOnce() {
        var run = runlane.template()
                .trigger("mail.send", new SendMail.Payload("old"))
                .run();
        runlane.jdbc()
                .update(
                        "INSERT INTO " + runlane.schema() + ".run_events (run_id, seq, type, status, created_at, actor)"
                                + " VALUES (?, 1, 'CREATED', 'QUEUED', now(), 'legacy')",
                        run.id());

        assertThat(runlane.template().runs().events(run.id()))
                .singleElement()
                .satisfies(event -> assertThat(event.actor()).isEqualTo("legacy"));
    }
}

package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.BulkResult;
import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEventType;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.SendMail;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-RV-4: resumeAll and cancelAll act on the runs a query selects, in bounded batches that skip locked rows. */
class BulkRecoveryIntegrationTests {

    /** Runs until its cancellation is requested, then returns, so that the run ends {@code CANCELLED}. */
    @Task(id = "bulk.until-cancelled")
    public static class UntilCancelled implements TaskHandler<UntilCancelled.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(context::isCancellationRequested);
        }
    }

    /** A second task without keys, so that a query can select by task. */
    @Task(id = "bulk.other")
    public static class Other implements TaskHandler<Other.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        dataSource = TestDatabase.newDataSource(12);
        runlane = TestRunlane.withExecution(
                dataSource,
                TestDatabase.freshSchema(dataSource, "bulk_recovery"),
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(100))
                        .withLease(Duration.ofSeconds(5), Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new SendMail(),
                new Other(),
                new UntilCancelled());
    }

    @AfterEach
    void stop() {
        runlane.stop();
        dataSource.close();
    }

    private RunOperations runs() {
        return runlane.template().runs();
    }

    private Run mail(TriggerOptions options) {
        return runlane.template()
                .trigger("mail.send", new SendMail.Payload("a@example.com"), options)
                .run();
    }

    private Run failedMail(TriggerOptions options) {
        return runlane.finish(mail(options).id(), RunStatus.FAILED);
    }

    private Run failedOther() {
        return runlane.finish(
                runlane.template().trigger("bulk.other", new Other.Payload("x")).runId(), RunStatus.FAILED);
    }

    private long resumedEvents(UUID runId) {
        return runs().events(runId).stream()
                .filter(event -> event.type() == RunEventType.RESUMED)
                .count();
    }

    private long eventCount() {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".run_events", Long.class);
    }

    private static RunQuery failedMailRuns() {
        return RunQuery.builder()
                .taskIds("mail.send")
                .statuses(RunStatus.FAILED)
                .build();
    }

    @Test
    @DisplayName("S-RV-4: resumeAll resumes the FAILED runs of one task and leaves other tasks, statuses and"
            + " successful runs alone")
    void resumeAllResumesTheFailedRunsTheQuerySelects() {
        List<Run> failed = List.of(
                failedMail(TriggerOptions.none()),
                failedMail(TriggerOptions.none()),
                failedMail(TriggerOptions.none()));
        Run otherTask = failedOther();
        Run succeeded = runlane.finish(mail(TriggerOptions.none()).id(), RunStatus.SUCCEEDED);
        Run cancelled = runs().cancel(mail(TriggerOptions.none()).id(), "not now");
        Run queued = mail(TriggerOptions.none());

        BulkResult result = runs().resumeAll(failedMailRuns(), 100);

        assertThat(result).isEqualTo(new BulkResult(3, 3, Map.of()));
        for (Run run : failed) {
            assertThat(runlane.run(run.id()).status()).isEqualTo(RunStatus.QUEUED);
            assertThat(resumedEvents(run.id())).isEqualTo(1);
        }
        assertThat(runlane.run(otherTask.id()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(runlane.run(succeeded.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(runlane.run(cancelled.id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(queued.id()).status()).isEqualTo(RunStatus.QUEUED);
        runlane.startWorker();
        for (Run run : failed) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.run(run.id()).status() == RunStatus.SUCCEEDED);
        }
    }

    @Test
    @DisplayName("S-RV-4: without statuses a query selects the FAILED and CANCELLED runs for resumeAll; the"
            + " succeeded and active ones are not matched")
    void resumeAllNarrowsTheQueryToResumableStatuses() {
        Run failed = failedMail(TriggerOptions.none());
        Run cancelled = runs().cancel(mail(TriggerOptions.none()).id(), "not now");
        runlane.finish(mail(TriggerOptions.none()).id(), RunStatus.SUCCEEDED);
        mail(TriggerOptions.none());

        BulkResult result = runs().resumeAll(RunQuery.all(), 100);

        assertThat(result.matched()).isEqualTo(2);
        assertThat(result.acted()).isEqualTo(2);
        assertThat(runlane.run(failed.id()).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.run(cancelled.id()).status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-RV-4, S-RV-2: a run whose idempotency key another run took, or whose singleton key is held, is"
            + " skipped with its reason and the others are resumed")
    void refusedRunsAreSkippedWithTheirReason() {
        Run keyTaken = failedMail(TriggerOptions.builder().idempotencyKey("k").build());
        Run owner = mail(TriggerOptions.builder().idempotencyKey("k").build());
        Run singletonHeld =
                failedMail(TriggerOptions.builder().singletonKey("s").build());
        mail(TriggerOptions.builder().singletonKey("s").build());
        Run free = failedMail(TriggerOptions.none());
        long keyTakenEvents = runs().events(keyTaken.id()).size();

        BulkResult result = runs().resumeAll(failedMailRuns(), 100);

        assertThat(result.matched()).isEqualTo(3);
        assertThat(result.acted()).isEqualTo(1);
        assertThat(result.skipped())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(keyTaken.id(), "idempotency_key_active", singletonHeld.id(), "singleton_conflict"));
        assertThat(runlane.run(free.id()).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.run(keyTaken.id()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(runs().events(keyTaken.id())).hasSize((int) keyTakenEvents);
        assertThat(runs().findCurrent("mail.send", "k")).map(Run::id).contains(owner.id());
    }

    @Test
    @DisplayName("S-RV-4: maxRuns bounds one call, newest first, across batches; calling again continues")
    void maxRunsBoundsOneCall() {
        List<Run> failed = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            failed.add(failedMail(TriggerOptions.none()));
        }
        failed.sort(Comparator.comparing(Run::id).reversed());

        BulkResult first = runs().resumeAll(failedMailRuns(), 230);

        assertThat(first).isEqualTo(new BulkResult(230, 230, Map.of()));
        assertThat(failed.subList(0, 230))
                .allSatisfy(run -> assertThat(runlane.run(run.id()).status()).isEqualTo(RunStatus.QUEUED));
        assertThat(failed.subList(230, 250))
                .allSatisfy(run -> assertThat(runlane.run(run.id()).status()).isEqualTo(RunStatus.FAILED));

        BulkResult second = runs().resumeAll(failedMailRuns(), 230);

        assertThat(second).isEqualTo(new BulkResult(20, 20, Map.of()));
        assertThat(runs().resumeAll(failedMailRuns(), 1)).isEqualTo(new BulkResult(0, 0, Map.of()));
    }

    @Test
    @DisplayName("S-RV-4: a run another transaction holds is skipped as locked, not waited for, and a later call"
            + " resumes it")
    void lockedRunIsSkippedNotWaitedFor() throws Exception {
        Run locked = failedMail(TriggerOptions.none());
        Run free = failedMail(TriggerOptions.none());
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement select =
                    holder.prepareStatement("SELECT id FROM " + runlane.schema() + ".runs WHERE id = ? FOR UPDATE")) {
                select.setObject(1, locked.id());
                try (ResultSet rows = select.executeQuery()) {
                    assertThat(rows.next()).isTrue();
                }
            }

            BulkResult result =
                    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> runs().resumeAll(failedMailRuns(), 100));

            assertThat(result.matched()).isEqualTo(2);
            assertThat(result.acted()).isEqualTo(1);
            assertThat(result.skipped()).containsExactlyEntriesOf(Map.of(locked.id(), BulkResult.LOCKED));
            assertThat(runlane.run(free.id()).status()).isEqualTo(RunStatus.QUEUED);
            assertThat(runlane.run(locked.id()).status()).isEqualTo(RunStatus.FAILED);
            holder.rollback();
        }

        assertThat(runs().resumeAll(failedMailRuns(), 100)).isEqualTo(new BulkResult(1, 1, Map.of()));
        assertThat(runlane.run(locked.id()).status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-RV-4, S-CA-1, S-CA-2: cancelAll cancels waiting runs at once and asks running ones to stop")
    void cancelAllCancelsWaitingRunsAndAsksRunningOnes() {
        Run scheduled = mail(TriggerOptions.builder().delay(Duration.ofHours(1)).build());
        Run otherScheduled =
                mail(TriggerOptions.builder().delay(Duration.ofHours(1)).build());
        Run succeeded = runlane.finish(mail(TriggerOptions.none()).id(), RunStatus.SUCCEEDED);
        UUID running = runlane.template()
                .trigger("bulk.until-cancelled", new UntilCancelled.Payload("r"))
                .runId();
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(running).status() == RunStatus.RUNNING);

        BulkResult result = runs().cancelAll(RunQuery.all(), 100);

        assertThat(result).isEqualTo(new BulkResult(3, 3, Map.of()));
        assertThat(runlane.run(scheduled.id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(otherScheduled.id()).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(succeeded.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(runlane.run(running).status()).isIn(RunStatus.CANCELLATION_REQUESTED, RunStatus.CANCELLED);
        assertThat(runs().events(scheduled.id()))
                .filteredOn(event -> event.type() == RunEventType.CANCELLED)
                .singleElement()
                .satisfies(event -> assertThat(event.detail()).isEqualTo("cancelled in bulk"));
        await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(running).status() == RunStatus.CANCELLED);
        // A run already asked to stop, or cancelled, is not matched again.
        assertThat(runs().cancelAll(RunQuery.all(), 100)).isEqualTo(new BulkResult(0, 0, Map.of()));
    }

    @Test
    @DisplayName("S-RV-4: bad input fails with a typed exception naming the field and writes nothing")
    void badInputIsRejectedBeforeAnythingIsWritten() {
        Run failed = failedMail(TriggerOptions.none());
        Run queued = mail(TriggerOptions.none());
        long events = eventCount();

        assertThatThrownBy(() -> runs().resumeAll(failedMailRuns(), 0))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("maxRuns"));
        assertThatThrownBy(() -> runs().cancelAll(RunQuery.all(), BulkResult.MAX_RUNS + 1))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("maxRuns"));
        assertThatThrownBy(() -> runs().resumeAll(
                                RunQuery.builder().statuses(RunStatus.SUCCEEDED).build(), 10))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("statuses"));
        assertThatThrownBy(() -> runs().cancelAll(
                                RunQuery.builder()
                                        .statuses(RunStatus.FAILED, RunStatus.CANCELLATION_REQUESTED)
                                        .build(),
                                10))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("statuses"));
        assertThatThrownBy(() ->
                        runs().resumeAll(RunQuery.builder().taskIds("bad:task").build(), 10))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("taskIds");
        assertThatThrownBy(() -> runs().cancelAll(
                                RunQuery.builder().cursor("not-a-cursor").build(), 10))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("cursor"));
        assertThatThrownBy(() -> runs().resumeAll(null, 10)).isInstanceOf(NullPointerException.class);

        assertThat(runlane.run(failed.id()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(runlane.run(queued.id()).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(eventCount()).isEqualTo(events);
    }

    @Test
    @DisplayName("S-RV-4: two operators resuming the same hundreds of runs while workers run resume each run once")
    void concurrentBulkResumesResumeEachRunOnce() {
        List<Run> failed = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            failed.add(failedMail(TriggerOptions.none()));
        }
        runlane.startWorker();

        List<Concurrently.Outcome<BulkResult>> outcomes =
                Concurrently.run(2, thread -> () -> runs().resumeAll(failedMailRuns(), BulkResult.MAX_RUNS));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        int acted = 0;
        for (Concurrently.Outcome<BulkResult> outcome : outcomes) {
            BulkResult result = outcome.value();
            assertThat(result.matched())
                    .isEqualTo(result.acted() + result.skipped().size());
            assertThat(result.skipped().values())
                    .allMatch(reason -> reason.equals("run_state_invalid") || reason.equals(BulkResult.LOCKED));
            acted += result.acted();
        }
        assertThat(acted).isEqualTo(300);
        assertThat(failed).allSatisfy(run -> assertThat(resumedEvents(run.id())).isEqualTo(1));
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        failed.stream().allMatch(run -> runlane.run(run.id()).status() == RunStatus.SUCCEEDED));
    }
}

package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.PayloadValidationException;
import io.runlane.Run;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.TaskNotFoundException;
import io.runlane.TriggerOptions;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** S-OP-2: rerun and manual retry create linked runs and never touch their source. */
@RunlaneDatabaseTest
class RerunRetryIntegrationTests {

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("rerun") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
    }

    private static Run finishedRefresh(RunStatus status) {
        Run run = runlane.template()
                .trigger(RefreshCustomer.class, new RefreshCustomer.Payload("c-" + UUID.randomUUID()))
                .run();
        return runlane.finish(run.id(), status);
    }

    @ParameterizedTest
    @EnumSource(
            value = RunStatus.class,
            names = {"SUCCEEDED", "FAILED", "CANCELLED"})
    @DisplayName("S-OP-2, S-OP-7: rerun accepts any terminal run, links the new run and leaves the source untouched")
    void rerunAcceptsAnyTerminalRun(RunStatus status) {
        Run source = finishedRefresh(status);
        var eventsBefore = runlane.template().runs().events(source.id());

        Run rerun = runlane.template().runs().rerun(source.id());

        assertThat(rerun.id()).isNotEqualTo(source.id());
        assertThat(rerun.sourceRunId()).isEqualTo(source.id());
        assertThat(rerun.sourceType()).isEqualTo("RERUN");
        assertThat(rerun.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(rerun.taskId()).isEqualTo(source.taskId());
        assertThat(rerun.payloadJson()).isEqualTo(source.payloadJson());
        assertThat(rerun.idempotencyKey()).as("keys are not inherited").isNull();
        assertThat(rerun.singletonKey()).isNull();
        assertThat(runlane.run(source.id())).isEqualTo(source);
        assertThat(runlane.template().runs().events(source.id())).isEqualTo(eventsBefore);
    }

    @Test
    @DisplayName("S-OP-2: retry accepts only a FAILED run")
    void retryAcceptsOnlyFailedRuns() {
        Run failed = finishedRefresh(RunStatus.FAILED);
        Run retried = runlane.template().runs().retry(failed.id());
        assertThat(retried.sourceType()).isEqualTo("RETRY");
        assertThat(retried.sourceRunId()).isEqualTo(failed.id());

        for (RunStatus status : new RunStatus[] {RunStatus.SUCCEEDED, RunStatus.CANCELLED}) {
            Run source = finishedRefresh(status);
            TestRunlane.RowCounts before = runlane.rowCounts();
            assertThatExceptionOfType(RunStateException.class)
                    .isThrownBy(() -> runlane.template().runs().retry(source.id()))
                    .satisfies(ex -> assertThat(ex.code()).isEqualTo("run_state_invalid"));
            assertThat(runlane.rowCounts()).isEqualTo(before);
        }
    }

    @Test
    @DisplayName("S-OP-2, S-OP-7: active runs cannot be rerun or retried, unknown runs are not found")
    void activeAndUnknownRunsAreRejected() {
        Run active = runlane.template()
                .trigger(RefreshCustomer.class, new RefreshCustomer.Payload("c-" + UUID.randomUUID()))
                .run();
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(RunStateException.class)
                .isThrownBy(() -> runlane.template().runs().rerun(active.id()));
        assertThatExceptionOfType(RunStateException.class)
                .isThrownBy(() -> runlane.template().runs().retry(active.id()));
        assertThatExceptionOfType(RunNotFoundException.class)
                .isThrownBy(() -> runlane.template().runs().rerun(UUID.randomUUID()));
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-OP-2: keys are taken only when the caller passes them")
    void keysOnlyWhenPassed() {
        Run source = finishedRefresh(RunStatus.FAILED);
        String key = "manual-" + UUID.randomUUID();

        Run retried = runlane.template()
                .runs()
                .retry(source.id(), TriggerOptions.builder().idempotencyKey(key).build());

        assertThat(retried.idempotencyKey()).isEqualTo(key);
        assertThat(runlane.template()
                        .runs()
                        .findCurrent("customers.refresh", key)
                        .map(Run::id))
                .contains(retried.id());
    }

    @Test
    @DisplayName("S-OP-2, S-ID-4: a stored payload that is no longer valid is rejected and nothing is written")
    void invalidStoredPayloadIsRejected() {
        Run source = runlane.template()
                .trigger("orders.confirm", new ConfirmOrder.Payload("o-" + UUID.randomUUID(), 1))
                .run();
        runlane.finish(source.id(), RunStatus.FAILED);
        runlane.jdbc()
                .update(
                        "UPDATE " + runlane.schema() + ".runs SET payload = '{\"orderId\": \"\", \"quantity\": 0}'"
                                + " WHERE id = ?",
                        source.id());
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(PayloadValidationException.class)
                .isThrownBy(() -> runlane.template().runs().retry(source.id()))
                .satisfies(ex -> assertThat(ex.violations()).hasSize(2));
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("S-OP-2, S-ID-5: a run of a task this application no longer has cannot be rerun")
    void unknownTaskIsRejected() {
        Run source = runlane.template()
                .trigger("orders.confirm", new ConfirmOrder.Payload("o-" + UUID.randomUUID(), 1))
                .run();
        runlane.finish(source.id(), RunStatus.SUCCEEDED);
        TestRunlane withoutOrders = TestRunlane.start(dataSource, runlane.schema(), new TestTasks.SendMail());

        assertThatExceptionOfType(TaskNotFoundException.class)
                .isThrownBy(() -> withoutOrders.template().runs().rerun(source.id()));
    }

    @Test
    @DisplayName("S-OP-1: a run that never ran has no attempts; an unknown run is not found")
    void attemptsOfARunWithoutAttempts() {
        Run source = finishedRefresh(RunStatus.CANCELLED);
        assertThat(runlane.template().runs().attempts(source.id())).isEmpty();
        assertThatExceptionOfType(RunNotFoundException.class)
                .isThrownBy(() -> runlane.template().runs().attempts(UUID.randomUUID()));
    }
}

package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunFailedEvent;
import io.runlane.RunOutcomeListener;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs ended outside a worker's own completion reach {@link RunOutcomeListener}s and {@link RunFailedEvent}s too, after
 * commit (issue 15, item 11): an operator's cancel, lease recovery with no attempts left, an attempt timeout.
 */
class RunEndingOutcomesIntegrationTests {

    private static ApplicationContextRunner runner(String owner) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        RunlaneAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "runlane.schema.name=" + TestDatabase.freshSchema(owner),
                        "runlane.worker.poll-interval=50ms")
                .withBean(Idle.class)
                .withBean(Outcomes.class);
    }

    @Test
    @DisplayName("Issue 15.11, S-CA-1: a queued run cancelled by an operator reaches the listeners as CANCELLED")
    void operatorCancelOfQueuedRunIsReported() {
        runner("ending_cancel").run(context -> {
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
            Outcomes outcomes = context.getBean(Outcomes.class);
            UUID runId = template.trigger(Idle.class, new Nothing()).runId();

            Run cancelled = template.runs().cancel(runId, "no longer needed");

            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            await().atMost(Duration.ofSeconds(10)).until(() -> !outcomes.finished.isEmpty());
            assertThat(outcomes.finished).singleElement().satisfies(run -> {
                assertThat(run.id()).isEqualTo(runId);
                assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
            });
            assertThat(outcomes.failed).isEmpty();
        });
    }

    @Test
    @DisplayName("Issue 15.11: a cancel in the caller's transaction is reported once it commits, never on rollback")
    void cancelInCallersTransactionIsReportedAfterCommitOnly() {
        runner("ending_cancel_tx").run(context -> {
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
            Outcomes outcomes = context.getBean(Outcomes.class);
            TransactionTemplate transaction =
                    new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            UUID rolledBack = template.trigger(Idle.class, new Nothing()).runId();
            UUID committed = template.trigger(Idle.class, new Nothing()).runId();

            transaction.executeWithoutResult(status -> {
                template.runs().cancel(rolledBack, "changed my mind");
                status.setRollbackOnly();
            });
            transaction.executeWithoutResult(status -> {
                template.runs().cancel(committed, "no longer needed");
                await().during(Duration.ofMillis(300))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> outcomes.finished.isEmpty());
            });

            await().atMost(Duration.ofSeconds(10)).until(() -> !outcomes.finished.isEmpty());
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> outcomes.finished.size() == 1);
            assertThat(outcomes.finished).extracting(Run::id).containsExactly(committed);
            assertThat(template.runs().get(rolledBack))
                    .hasValueSatisfying(run -> assertThat(run.status()).isEqualTo(RunStatus.QUEUED));
        });
    }

    @Test
    @DisplayName("Issue 15.11, S-EX-7: a run failed by lease recovery with no attempts left is reported and published")
    void leaseRecoveryFailureIsReported() {
        runner("ending_lease")
                .withPropertyValues("runlane.recovery.enabled=false")
                .run(context -> {
                    RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
                    RunlaneEngine engine = context.getBean(RunlaneEngine.class);
                    Outcomes outcomes = context.getBean(Outcomes.class);
                    UUID runId = template.trigger(Idle.class, new Nothing()).runId();
                    List<ClaimedRun> claimed = engine.claims()
                            .claimDue(
                                    "dead-worker",
                                    List.of("default"),
                                    List.of("ending.idle"),
                                    1,
                                    Duration.ofMillis(200));
                    assertThat(claimed)
                            .singleElement()
                            .satisfies(run -> assertThat(run.run().id()).isEqualTo(runId));

                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> engine.leaseRescuer().rescueExpired() == 1);

                    await().atMost(Duration.ofSeconds(10)).until(() -> !outcomes.failed.isEmpty());
                    assertThat(outcomes.failed).singleElement().satisfies(event -> {
                        assertThat(event.run().id()).isEqualTo(runId);
                        assertThat(event.run().failure().code()).isEqualTo("lease_expired");
                    });
                    await().atMost(Duration.ofSeconds(5)).until(() -> !outcomes.finished.isEmpty());
                    assertThat(outcomes.finished).singleElement().satisfies(run -> {
                        assertThat(run.id()).isEqualTo(runId);
                        assertThat(run.status()).isEqualTo(RunStatus.FAILED);
                    });
                });
    }

    @Test
    @DisplayName("Issue 15.11, S-EX-21: a run failed by its attempt's timeout is reported and published")
    void attemptTimeoutFailureIsReported() {
        runner("ending_timeout")
                .withPropertyValues("runlane.worker.heartbeat-interval=100ms")
                .withBean(Stuck.class)
                .run(context -> {
                    context.getBean(RunWorker.class).start();
                    Outcomes outcomes = context.getBean(Outcomes.class);
                    UUID runId = context.getBean(RunlaneTemplate.class)
                            .trigger(Stuck.class, new Nothing())
                            .runId();

                    await().atMost(Duration.ofSeconds(20)).until(() -> !outcomes.failed.isEmpty());
                    assertThat(outcomes.failed).singleElement().satisfies(event -> {
                        assertThat(event.run().id()).isEqualTo(runId);
                        assertThat(event.run().failure().code()).isEqualTo("attempt_timeout");
                    });
                    await().atMost(Duration.ofSeconds(5)).until(() -> !outcomes.finished.isEmpty());
                    assertThat(outcomes.finished)
                            .extracting(Run::id, Run::status)
                            .containsExactly(org.assertj.core.api.Assertions.tuple(runId, RunStatus.FAILED));
                });
    }

    record Nothing() {}

    /** Never run by a worker in these tests, except where one is started. */
    @Task(id = "ending.idle", maxAttempts = 1)
    static class Idle implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    /** Blocks until its timeout interrupts it. */
    @Task(id = "ending.stuck", maxAttempts = 1, timeout = "300ms")
    static class Stuck implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) throws InterruptedException {
            new CountDownLatch(1).await(30, TimeUnit.SECONDS);
        }
    }

    /** The application's listener bean and event listener. */
    static class Outcomes implements RunOutcomeListener {

        final List<Run> finished = new CopyOnWriteArrayList<>();

        final List<RunFailedEvent> failed = new CopyOnWriteArrayList<>();

        @Override
        public void runFinished(Run run) {
            finished.add(run);
        }

        @EventListener
        void onFailure(RunFailedEvent event) {
            failed.add(event);
        }
    }
}

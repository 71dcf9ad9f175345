package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.NonRetryableException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunFailedEvent;
import io.runlane.RunOutcomeListener;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.worker.RunWorker;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Runs that a worker ends are reported to the application after commit (issue 15, item 11): every terminal outcome to
 * {@link RunOutcomeListener} beans, and failures as {@link RunFailedEvent}s.
 */
@RunlaneDatabaseTest
class RunOutcomeEventsIntegrationTests {

    @Pool(size = 1)
    private static HikariDataSource admin;

    private static String schema;

    @Test
    @DisplayName("Issue 15.11: a FAILED run is published as a RunFailedEvent and every outcome reaches the listeners")
    void terminalOutcomesAreReportedAfterCommit() {
        schema = TestDatabase.freshSchema(admin, "outcome_events");
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        RunlaneAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "runlane.schema.name=" + schema,
                        "runlane.worker.poll-interval=50ms")
                .withBean(Succeeds.class)
                .withBean(Fails.class)
                .withBean(Outcomes.class)
                .run(context -> {
                    // a context runner publishes no ApplicationReadyEvent, which starts the worker in an application
                    context.getBean(RunWorker.class).start();
                    RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
                    Outcomes outcomes = context.getBean(Outcomes.class);

                    UUID succeeded =
                            template.trigger(Succeeds.class, new Nothing()).runId();
                    UUID failed = template.trigger(Fails.class, new Nothing()).runId();

                    await().atMost(Duration.ofSeconds(30)).until(() -> outcomes.finished.size() == 2);
                    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.failed.size() == 1);
                    assertThat(outcomes.finished)
                            .extracting(Run::id, Run::status)
                            .containsExactlyInAnyOrder(
                                    tuple(succeeded, RunStatus.SUCCEEDED), tuple(failed, RunStatus.FAILED));
                    Run failure = outcomes.failed.get(0).run();
                    assertThat(failure.id()).isEqualTo(failed);
                    assertThat(failure.failure()).isNotNull();
                    assertThat(failure.failure().message()).contains("card declined");
                    assertThat(outcomes.statusesSeenInTheDatabase)
                            .as("each outcome was committed when it was reported")
                            .containsOnly(RunStatus.SUCCEEDED, RunStatus.FAILED);
                });
    }

    record Nothing() {}

    @Task(id = "outcomes.succeeds")
    static class Succeeds implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "outcomes.fails", maxAttempts = 1)
    static class Fails implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {
            throw new NonRetryableException("card declined");
        }
    }

    /** The application's listener bean and event listener. */
    static class Outcomes implements RunOutcomeListener {

        final List<Run> finished = new CopyOnWriteArrayList<>();

        final List<RunFailedEvent> failed = new CopyOnWriteArrayList<>();

        final List<RunStatus> statusesSeenInTheDatabase = new CopyOnWriteArrayList<>();

        @Override
        public void runFinished(Run run) {
            statusesSeenInTheDatabase.add(RunStatus.valueOf(new JdbcTemplate(admin)
                    .queryForObject("SELECT status FROM " + schema + ".runs WHERE id = ?", String.class, run.id())));
            finished.add(run);
        }

        @EventListener
        void onFailure(RunFailedEvent event) {
            failed.add(event);
        }
    }
}

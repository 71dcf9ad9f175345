package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.NonRetryableException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Outcomes survive a database that refuses them for longer than the lease (S-EX-20, S-EX-3, S-EX-7). */
@RunlaneDatabaseTest
class OutcomeRetryIntegrationTests {

    @Task(id = "outcome.succeeds")
    public static class Succeeds implements TaskHandler<Succeeds.Payload> {

        public record Payload(int n) {}

        static final AtomicInteger RAN = new AtomicInteger();

        @Override
        public void run(Payload payload, RunContext context) {
            RAN.incrementAndGet();
        }
    }

    @Task(id = "outcome.refuses")
    public static class Refuses implements TaskHandler<Refuses.Payload> {

        public record Payload(int n) {}

        static final AtomicInteger RAN = new AtomicInteger();

        @Override
        public void run(Payload payload, RunContext context) {
            RAN.incrementAndGet();
            throw new NonRetryableException("the order no longer exists");
        }
    }

    /** Releases its first attempt, succeeds in its second. */
    @Task(id = "outcome.releases")
    public static class Releases implements TaskHandler<Releases.Payload> {

        public record Payload(int n) {}

        static final AtomicInteger RAN = new AtomicInteger();

        @Override
        public void run(Payload payload, RunContext context) {
            if (RAN.incrementAndGet() == 1) {
                context.release(Duration.ZERO, "not yet");
            }
        }
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    @FreshSchema("outcome")
    private String schema;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        Succeeds.RAN.set(0);
        Refuses.RAN.set(0);
        Releases.RAN.set(0);
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(50))
                        .withLease(Duration.ofSeconds(2), Duration.ofMillis(300))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .withRecoveryInterval(Duration.ofMillis(200)),
                EngineListener.NONE,
                new Succeeds(),
                new Refuses(),
                new Releases());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    /**
     * For ten seconds from now, every statement that would end an attempt (success, failure, release) fails, while
     * heartbeats and recovery's retries still work: the database refuses exactly the writes a worker must not lose.
     * Each refusal counts in a sequence, which no rollback undoes.
     */
    private void refuseOutcomesForTenSeconds() {
        runlane.jdbc().execute("CREATE SEQUENCE " + schema + ".refusals");
        runlane.jdbc()
                .execute("CREATE FUNCTION " + schema + ".refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$"
                        + " BEGIN IF clock_timestamp() < timestamptz '"
                        + runlane.jdbc()
                                .queryForObject(
                                        "SELECT (clock_timestamp() + interval '10 seconds')::text", String.class)
                        + "' THEN PERFORM nextval('" + schema + ".refusals');"
                        + " RAISE EXCEPTION 'database unavailable (test outage)'; END IF; RETURN NEW; END $$");
        runlane.jdbc()
                .execute("CREATE TRIGGER refuse_outcome BEFORE UPDATE ON " + schema + ".runs FOR EACH ROW"
                        + " WHEN (NEW.status IN ('SUCCEEDED', 'FAILED', 'RELEASED'))"
                        + " EXECUTE FUNCTION " + schema + ".refuse_outcome()");
    }

    @Test
    @DisplayName("Finding 6, S-EX-20: a 10 s outage of outcome writes runs no handler twice; outcomes are as intended")
    void outcomesAreKeptThroughAnOutageLongerThanTheLease() {
        refuseOutcomesForTenSeconds();
        UUID succeeds = runlane.template()
                .trigger("outcome.succeeds", new Succeeds.Payload(1))
                .runId();
        UUID refuses = runlane.template()
                .trigger("outcome.refuses", new Refuses.Payload(1))
                .runId();
        UUID releases = runlane.template()
                .trigger("outcome.releases", new Releases.Payload(1))
                .runId();
        runlane.startWorker().startMaintenance();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> runlane.run(succeeds).status().isTerminal()
                        && runlane.run(refuses).status().isTerminal()
                        && runlane.run(releases).status().isTerminal());

        assertThat(runlane.jdbc().queryForObject("SELECT last_value FROM " + schema + ".refusals", Long.class))
                .as("outcomes were refused throughout the outage")
                .isGreaterThan(5);
        Run succeeded = runlane.run(succeeds);
        assertThat(succeeded.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(succeeded.attempts()).isEqualTo(1);
        assertThat(Succeeds.RAN).as("the successful handler ran once").hasValue(1);

        Run failed = runlane.run(refuses);
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.failure().code())
                .as("its real failure, not lease_expired")
                .isEqualTo("non_retryable");
        assertThat(failed.failure().message()).isEqualTo("the order no longer exists");
        assertThat(Refuses.RAN).as("the non-retryable handler ran once").hasValue(1);

        Run released = runlane.run(releases);
        assertThat(released.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(Releases.RAN).as("released once, then succeeded").hasValue(2);

        for (UUID runId : new UUID[] {succeeds, refuses, releases}) {
            assertThat(runlane.template().runs().events(runId))
                    .extracting(RunEvent::type)
                    .doesNotContain(RunEventType.LEASE_EXPIRED);
        }
    }
}

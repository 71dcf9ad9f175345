package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.BulkResult;
import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEventType;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-RV-4, S-OP-1: {@code RunQuery.failureCodes} selects runs by the code of their stored failure. */
@RunlaneDatabaseTest
class FailureCodeFilterIntegrationTests {

    /** Whether the checkout tasks fail; once cleared, a resumed run succeeds. */
    static final AtomicBoolean FAILING = new AtomicBoolean(true);

    /** An exception with the code the payload names, as an application's own failure codes are. */
    static final class CodedFailure extends RunlaneException {
        CodedFailure(String code) {
            super(code, "failed with " + code);
        }
    }

    /** Fails with the payload's code while {@link #FAILING} is set. */
    @Task(id = "orders.checkout", maxAttempts = 1)
    public static class Checkout implements TaskHandler<Checkout.Payload> {

        public record Payload(String code) {}

        @Override
        public void run(Payload payload, RunContext context) {
            if (FAILING.get()) {
                throw new CodedFailure(payload.code());
            }
        }
    }

    /** Another task failing the same way, which a query by task leaves alone. */
    @Task(id = "orders.refund", maxAttempts = 1)
    public static class Refund implements TaskHandler<Checkout.Payload> {

        @Override
        public void run(Checkout.Payload payload, RunContext context) {
            if (FAILING.get()) {
                throw new CodedFailure(payload.code());
            }
        }
    }

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("failure_code") String schema) {
        FAILING.set(true);
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(4, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Checkout(),
                new Refund());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private RunOperations runs() {
        return runlane.template().runs();
    }

    private UUID trigger(String taskId, String code) {
        return runlane.template().trigger(taskId, new Checkout.Payload(code)).runId();
    }

    private Instant databaseNow() {
        return runlane.jdbc()
                .queryForObject("SELECT statement_timestamp()", Timestamp.class)
                .toInstant();
    }

    private void awaitFailed(List<UUID> runIds) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runIds.stream().allMatch(id -> runlane.run(id).status() == RunStatus.FAILED));
    }

    private long resumedEvents(UUID runId) {
        return runs().events(runId).stream()
                .filter(event -> event.type() == RunEventType.RESUMED)
                .count();
    }

    private long eventCount() {
        return runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".run_events", Long.class);
    }

    @Test
    @DisplayName("S-RV-4: \"resume every run of orders.checkout that failed between a and b with"
            + " upstream_unavailable\" is one resumeAll call, and leaves every other failure alone")
    void oneCallResumesTheFailuresOfOneCodeInAWindow() {
        UUID early = trigger("orders.checkout", "upstream_unavailable");
        runlane.startWorker();
        awaitFailed(List.of(early));
        runlane.age(early, Duration.ofHours(1));
        Instant from = databaseNow();
        List<UUID> upstream = List.of(
                trigger("orders.checkout", "upstream_unavailable"),
                trigger("orders.checkout", "upstream_unavailable"),
                trigger("orders.checkout", "upstream_unavailable"));
        UUID declined = trigger("orders.checkout", "card_declined");
        UUID refund = trigger("orders.refund", "upstream_unavailable");
        awaitFailed(List.of(upstream.get(0), upstream.get(1), upstream.get(2), declined, refund));
        Instant to = databaseNow();
        FAILING.set(false);

        BulkResult result = runs().resumeAll(
                        RunQuery.builder()
                                .taskIds("orders.checkout")
                                .statuses(RunStatus.FAILED)
                                .finishedBetween(from, to)
                                .failureCodes("upstream_unavailable")
                                .build(),
                        1_000);

        assertThat(result.matched()).isEqualTo(3);
        assertThat(result.acted()).isEqualTo(3);
        assertThat(result.skipped()).isEmpty();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> upstream.stream().allMatch(id -> runlane.run(id).status() == RunStatus.SUCCEEDED));
        upstream.forEach(id -> assertThat(resumedEvents(id)).isEqualTo(1));
        for (UUID untouched : List.of(early, declined, refund)) {
            assertThat(runlane.run(untouched).status()).isEqualTo(RunStatus.FAILED);
            assertThat(resumedEvents(untouched)).isZero();
        }
    }

    @Test
    @DisplayName("S-OP-1: list selects the runs whose stored failure has one of the codes; empty means any run")
    void listFiltersByFailureCode() {
        UUID upstream = trigger("orders.checkout", "upstream_unavailable");
        UUID declined = trigger("orders.checkout", "card_declined");
        UUID timeout = trigger("orders.checkout", "gateway_timeout");
        runlane.startWorker();
        awaitFailed(List.of(upstream, declined, timeout));
        FAILING.set(false);
        UUID succeeded = trigger("orders.checkout", "upstream_unavailable");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(succeeded).status() == RunStatus.SUCCEEDED);

        assertThat(runs().list(RunQuery.builder()
                                .failureCodes("upstream_unavailable", "gateway_timeout")
                                .build())
                        .items())
                .extracting(Run::id)
                .containsExactlyInAnyOrder(upstream, timeout);
        assertThat(runs().list(RunQuery.builder()
                                .failureCodes(Set.of("card_declined"))
                                .build())
                        .items())
                .extracting(Run::id)
                .containsExactly(declined);
        assertThat(runs().list(RunQuery.builder().failureCodes().build()).items())
                .extracting(Run::id)
                .containsExactlyInAnyOrder(upstream, declined, timeout, succeeded);
        RunQuery query =
                RunQuery.builder().failureCodes("card_declined").limit(1).build();
        assertThat(query.failureCodes()).containsExactly("card_declined");
        assertThat(query.after("cursor").failureCodes()).containsExactly("card_declined");
    }

    @Test
    @DisplayName("S-RV-4: cancelAll applies the failure-code filter too: active runs without the code are left alone")
    void cancelAllAppliesTheFailureCodeFilter() {
        UUID queued = trigger("orders.checkout", "upstream_unavailable");

        BulkResult result = runs().cancelAll(
                        RunQuery.builder()
                                .taskIds("orders.checkout")
                                .failureCodes("upstream_unavailable")
                                .build(),
                        100);

        assertThat(result.matched()).isZero();
        assertThat(runlane.run(queued).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runs().cancelAll(
                                RunQuery.builder().taskIds("orders.checkout").build(), 100)
                        .acted())
                .isEqualTo(1);
    }

    @Test
    @DisplayName("S-RV-4: an invalid failure code fails list, resumeAll and cancelAll with InvalidKeyException naming"
            + " failureCodes, and nothing is written")
    void invalidFailureCodesAreRefused() {
        UUID failed = trigger("orders.checkout", "upstream_unavailable");
        runlane.startWorker();
        awaitFailed(List.of(failed));
        long events = eventCount();
        List<RunQuery> invalid = List.of(
                RunQuery.builder().failureCodes("").build(),
                RunQuery.builder().failureCodes("upstream_unavailable", null).build(),
                RunQuery.builder().failureCodes("x".repeat(300)).build());

        for (RunQuery query : invalid) {
            assertThatThrownBy(() -> runs().list(query))
                    .isInstanceOfSatisfying(
                            InvalidKeyException.class,
                            ex -> assertThat(ex.getMessage()).contains("failureCodes"));
            assertThatThrownBy(() -> runs().resumeAll(query, 10))
                    .isInstanceOfSatisfying(
                            InvalidKeyException.class,
                            ex -> assertThat(ex.getMessage()).contains("failureCodes"));
            assertThatThrownBy(() -> runs().cancelAll(query, 10))
                    .isInstanceOfSatisfying(
                            InvalidKeyException.class,
                            ex -> assertThat(ex.getMessage()).contains("failureCodes"));
        }

        assertThat(eventCount()).isEqualTo(events);
        assertThat(runlane.run(failed).status()).isEqualTo(RunStatus.FAILED);
    }
}

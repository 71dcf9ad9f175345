package io.runlane.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.PayloadValidationException;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * PostgreSQL stores no U+0000, neither in {@code jsonb} nor in {@code text}: a payload holding one is refused before
 * anything is sent (S-ID-9), and free text written with an outcome has it replaced, so the outcome is still written
 * (S-EX-25).
 */
@RunlaneDatabaseTest
class NulCharacterIntegrationTests {

    private static final String NUL_REASON = "contains a NUL character (\\u0000), which PostgreSQL jsonb cannot store";

    /** Stores a nested payload; does nothing when run. */
    @Task(id = "nul.nested")
    public static class Nested implements TaskHandler<Nested.Payload> {

        public record Payload(String name, List<Item> items) {}

        public record Item(String sku, Map<String, String> labels) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Fails or releases with text holding U+0000, as its payload says. */
    @Task(id = "nul.outcome", maxAttempts = 1)
    public static class Outcome implements TaskHandler<Outcome.Payload> {

        public record Payload(String action) {}

        @Override
        public void run(Payload payload, RunContext context) {
            if (payload.action().equals("release")) {
                context.release(Duration.ofHours(1), "waiting\u0000for upstream");
                return;
            }
            throw new IllegalStateException("bad\u0000byte");
        }
    }

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("nul") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(100)),
                        EngineListener.NONE,
                        new Nested(),
                        new Outcome())
                .startWorker();
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    private static Nested.Payload nestedWithNul() {
        return new Nested.Payload(
                "order", List.of(new Nested.Item("a", Map.of()), new Nested.Item("b", Map.of("colour", "re\u0000d"))));
    }

    private static Nested.Payload valid(String name) {
        return new Nested.Payload(name, List.of(new Nested.Item("a", Map.of("colour", "red"))));
    }

    @Test
    @DisplayName("Finding 14, S-ID-9: a NUL in a nested payload string is a payload violation naming its path")
    void nulInANestedPayloadStringIsRejected() {
        PayloadValidationException ex = rejectedWithoutWrites(
                () -> runlane.template().trigger("nul.nested", nestedWithNul(), TriggerOptions.none()));

        assertThat(ex.taskId()).isEqualTo("nul.nested");
        assertThat(ex.violations()).containsExactly("payload.items[1].labels.colour: " + NUL_REASON);
    }

    @Test
    @DisplayName("Finding 14, S-ID-9: a NUL in a payload map key is rejected too")
    void nulInAFieldNameIsRejected() {
        Map<String, Object> payload =
                Map.of("name", "order", "items", List.of(Map.of("sku", "a", "labels", Map.of("col\u0000our", "red"))));

        PayloadValidationException ex =
                rejectedWithoutWrites(() -> runlane.template().trigger("nul.nested", payload, TriggerOptions.none()));

        assertThat(ex.violations()).containsExactly("payload.items[0].labels.col\uFFFDour: " + NUL_REASON);
    }

    @Test
    @DisplayName("Finding 14, S-ID-9: an escaped backslash before 'u0000' is ordinary text and is stored")
    void escapedBackslashBeforeU0000IsStored() {
        Nested.Payload payload =
                new Nested.Payload("C:\\u0000", List.of(new Nested.Item("a", Map.of("path", "\\u0000"))));

        TriggerResult result = runlane.template().trigger("nul.nested", payload, TriggerOptions.none());

        assertThat(result.created()).isTrue();
        assertThat(result.run().payloadJson()).contains("C:\\\\u0000");
    }

    @Test
    @DisplayName("Finding 14, S-ID-9, S-TR-3: a refused NUL payload leaves the caller's transaction usable")
    void nulPayloadInsideACallersTransactionLeavesItUsable() {
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
        TestRunlane.RowCounts before = runlane.rowCounts();

        TriggerResult after = transactions.execute(status -> {
            Throwable refused = catchThrowable(
                    () -> runlane.template().trigger("nul.nested", nestedWithNul(), TriggerOptions.none()));
            assertThat(refused).isInstanceOf(PayloadValidationException.class);
            return runlane.template().trigger("nul.nested", valid("after"), TriggerOptions.none());
        });

        assertThat(runlane.template().runs().get(after.runId())).isPresent();
        assertThat(runlane.rowCounts().runs()).isEqualTo(before.runs() + 1);
    }

    @Test
    @DisplayName("Finding 14, S-ID-9, S-TR-6: a batch with a NUL payload in its last item writes nothing")
    void batchWithANulPayloadWritesNothing() {
        PayloadValidationException ex = rejectedWithoutWrites(() -> runlane.template()
                .triggerAll(List.of(
                        TriggerRequest.of("nul.nested", valid("first")),
                        TriggerRequest.of("nul.nested", nestedWithNul()))));

        assertThat(ex.violations()).containsExactly("payload.items[1].labels.colour: " + NUL_REASON);
    }

    @Test
    @DisplayName("Finding 14, S-EX-25: a failure message with a NUL is stored with U+FFFD and the run ends FAILED")
    void failureMessageWithANulIsSanitised() {
        UUID runId = runlane.template()
                .trigger("nul.outcome", new Outcome.Payload("fail"))
                .runId();

        Run failed = await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(runId), run -> run.status() == RunStatus.FAILED);

        assertThat(failed.failure().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(failed.failure().message()).isEqualTo("bad\uFFFDbyte");
        assertThat(lastEvent(runId).detail()).isEqualTo("bad\uFFFDbyte");
    }

    @Test
    @DisplayName("Finding 14, S-EX-25: a release reason with a NUL is stored with U+FFFD and the run is RELEASED")
    void releaseReasonWithANulIsSanitised() {
        UUID runId = runlane.template()
                .trigger("nul.outcome", new Outcome.Payload("release"))
                .runId();

        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(runId), run -> run.status() == RunStatus.RELEASED);

        assertThat(lastEvent(runId).detail()).isEqualTo("waiting\uFFFDfor upstream");
    }

    @Test
    @DisplayName("Finding 14, S-EX-25: a cancel reason with a NUL is stored with U+FFFD and the run is CANCELLED")
    void cancelReasonWithANulIsSanitised() {
        UUID runId = runlane.template()
                .trigger(
                        "nul.nested",
                        valid("to-cancel"),
                        TriggerOptions.builder().delay(Duration.ofHours(1)).build())
                .runId();

        Run cancelled = runlane.template().runs().cancel(runId, "no\u0000longer needed");

        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(lastEvent(runId).detail()).isEqualTo("no\uFFFDlonger needed");
    }

    private static RunEvent lastEvent(UUID runId) {
        List<RunEvent> events = runlane.template().runs().events(runId);
        return events.get(events.size() - 1);
    }

    private static PayloadValidationException rejectedWithoutWrites(ThrowingCallable call) {
        TestRunlane.RowCounts before = runlane.rowCounts();
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(PayloadValidationException.class);
        TestRunlane.RowCounts after = runlane.rowCounts();
        // events are left out: the worker may still be appending those of earlier tests' runs (retries), and a
        // trigger writes no event row of its own (the creation event is read off the run's row)
        assertThat(after.runs()).as("runs after the refused call").isEqualTo(before.runs());
        assertThat(after.idempotencyKeyHolders())
                .as("keys after the refused call")
                .isEqualTo(before.idempotencyKeyHolders());
        return (PayloadValidationException) thrown;
    }
}

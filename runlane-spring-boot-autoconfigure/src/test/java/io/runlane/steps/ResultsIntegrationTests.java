package io.runlane.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunAwaitTimeoutException;
import io.runlane.RunCancelledException;
import io.runlane.RunContext;
import io.runlane.RunFailedException;
import io.runlane.RunNotFoundException;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Stored results and awaiting them (S-RS-1..3, S-RS-5). */
@RunlaneDatabaseTest
class ResultsIntegrationTests {

    /** Quotes a price; may fail, hold on a latch, or return something too large. */
    @Task(id = "results.quote")
    public static class ComputeQuote implements TaskFunction<ComputeQuote.Payload, ComputeQuote.Quote> {

        public record Payload(String sku, int quantity, String mode) {}

        public record Quote(String sku, BigDecimal total) {}

        static final Map<String, CountDownLatch> HOLDS = new ConcurrentHashMap<>();

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.mode().equals("keyed") ? "quote-" + payload.sku() : null;
        }

        @Override
        public Quote run(Payload payload, RunContext context) throws Exception {
            switch (payload.mode()) {
                case "fail" -> throw new io.runlane.NonRetryableException("no price for " + payload.sku());
                case "hold" ->
                    HOLDS.computeIfAbsent(payload.sku(), sku -> new CountDownLatch(1))
                            .await(60, TimeUnit.SECONDS);
                case "huge" -> {
                    return new Quote("x".repeat(1_100_000), BigDecimal.ONE);
                }
                default -> {}
            }
            return new Quote(
                    payload.sku(), BigDecimal.valueOf(payload.quantity()).multiply(new BigDecimal("2.50")));
        }
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("results") String schema) {
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                io.runlane.internal.kernel.EngineListener.NONE,
                new ComputeQuote());
    }

    @AfterEach
    void stop() {
        ComputeQuote.HOLDS.values().forEach(CountDownLatch::countDown);
        runlane.stop();
    }

    private UUID trigger(String sku, String mode) {
        return runlane.template()
                .trigger(ComputeQuote.class, new ComputeQuote.Payload(sku, 4, mode))
                .runId();
    }

    @Test
    @DisplayName("S-RS-1, S-RS-2: a task function's result is stored with the run and returned by result and"
            + " awaitResult")
    void resultIsStoredAndReturned() {
        UUID runId = trigger("apple", "plain");
        assertThat(runlane.template().runs().result(runId, ComputeQuote.Quote.class))
                .as("active run")
                .isEmpty();
        runlane.startWorker();

        ComputeQuote.Quote quote =
                runlane.template().runs().awaitResult(runId, ComputeQuote.Quote.class, Duration.ofSeconds(20));

        assertThat(quote).isEqualTo(new ComputeQuote.Quote("apple", new BigDecimal("10.00")));
        Run run = runlane.run(runId);
        assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(run.resultJson()).contains("\"sku\"").contains("apple");
        assertThat(runlane.template().runs().result(runId, ComputeQuote.Quote.class))
                .contains(quote);
        assertThat(runlane.template().runs().awaitResult(runId, ComputeQuote.Quote.class, Duration.ZERO))
                .as("a run that already ended is answered at once")
                .isEqualTo(quote);
    }

    @Test
    @DisplayName("S-RS-3: a duplicate trigger returns the retained owner, whose result stays readable")
    void duplicateTriggerAdoptsTheOwnersResult() {
        UUID owner = trigger("pear", "keyed");
        runlane.startWorker();
        runlane.template().runs().awaitResult(owner, ComputeQuote.Quote.class, Duration.ofSeconds(20));

        TriggerResult duplicate =
                runlane.template().trigger(ComputeQuote.class, new ComputeQuote.Payload("pear", 9, "keyed"));

        assertThat(duplicate.created()).isFalse();
        assertThat(duplicate.runId()).isEqualTo(owner);
        assertThat(runlane.template().runs().result(duplicate.runId(), ComputeQuote.Quote.class))
                .hasValueSatisfying(quote -> assertThat(quote.total()).isEqualByComparingTo("10"));
    }

    @Test
    @DisplayName("S-RS-2: awaiting a failed run throws RunFailedException with its failure; a cancelled one"
            + " RunCancelledException; an unknown one RunNotFoundException")
    void failedAndCancelledRunsThrowTypedExceptions() {
        UUID failed = trigger("stone", "fail");
        UUID cancelled = trigger("later", "plain");
        runlane.template().runs().cancel(cancelled, "changed my mind");
        runlane.startWorker();

        assertThatThrownBy(() ->
                        runlane.template().runs().awaitResult(failed, ComputeQuote.Quote.class, Duration.ofSeconds(20)))
                .isInstanceOfSatisfying(RunFailedException.class, ex -> {
                    assertThat(ex.code()).isEqualTo("run_failed");
                    assertThat(ex.runId()).isEqualTo(failed);
                    assertThat(ex.failure().code()).isEqualTo("non_retryable");
                    assertThat(ex.failure().message()).contains("no price for stone");
                });
        assertThatThrownBy(() -> runlane.template()
                        .runs()
                        .awaitResult(cancelled, ComputeQuote.Quote.class, Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(
                        RunCancelledException.class, ex -> assertThat(ex.code()).isEqualTo("run_cancelled"));
        assertThatThrownBy(() -> runlane.template()
                        .runs()
                        .awaitResult(UUID.randomUUID(), ComputeQuote.Quote.class, Duration.ofSeconds(1)))
                .isInstanceOf(RunNotFoundException.class);
        assertThat(runlane.template().runs().result(failed, ComputeQuote.Quote.class))
                .isEmpty();
    }

    @Test
    @DisplayName("S-RS-2: awaiting a run that does not end in time throws RunAwaitTimeoutException")
    void awaitTimesOut() {
        UUID held = trigger("slow", "hold");
        runlane.startWorker();

        assertThatThrownBy(() ->
                        runlane.template().runs().awaitResult(held, ComputeQuote.Quote.class, Duration.ofMillis(300)))
                .isInstanceOfSatisfying(RunAwaitTimeoutException.class, ex -> {
                    assertThat(ex.code()).isEqualTo("await_timeout");
                    assertThat(ex.runId()).isEqualTo(held);
                });
    }

    @Test
    @DisplayName("S-RS-2: 200 concurrent awaiters of one run, on this instance and another, are all woken with its"
            + " result")
    void twoHundredAwaitersAreAllWoken(@Pool(size = 4) HikariDataSource otherDataSource) {
        UUID held = trigger("crowd", "hold");
        TestRunlane other = runlane.instanceOn(otherDataSource);
        runlane.startWorker();
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(held).status() == RunStatus.RUNNING);

        CountDownLatch release = ComputeQuote.HOLDS.computeIfAbsent("crowd", sku -> new CountDownLatch(1));
        Thread releaser = new Thread(() -> {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runlane.engine().endings().subscribers(held)
                                    + other.engine().endings().subscribers(held)
                            == 200);
            release.countDown();
        });
        releaser.start();
        List<Concurrently.Outcome<ComputeQuote.Quote>> outcomes = Concurrently.run(
                200,
                i -> () -> (i % 2 == 0 ? runlane : other)
                        .template()
                        .runs()
                        .awaitResult(held, ComputeQuote.Quote.class, Duration.ofSeconds(40)));

        assertThat(outcomes).noneMatch(Concurrently.Outcome::failed);
        assertThat(outcomes)
                .extracting(Concurrently.Outcome::value)
                .containsOnly(new ComputeQuote.Quote("crowd", new BigDecimal("10.00")));
    }

    @Test
    @DisplayName("S-RS-5: a result larger than runlane.results.max-size fails the run at once with result_too_large")
    void tooLargeResultFailsTheRun() {
        UUID huge = trigger("huge", "huge");
        runlane.startWorker();

        Run failed = await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(huge), run -> run.status() == RunStatus.FAILED);
        assertThat(failed.failure().code()).isEqualTo("result_too_large");
        assertThat(failed.attempts()).isEqualTo(1);
        assertThat(failed.resultJson()).isNull();
    }
}

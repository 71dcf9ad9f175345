package io.runlane.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.PruneRequest;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.PruningSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * S-ID-10: run-at times outside the years 1 to 9999 and durations over 1,000 years fail with
 * {@link ConfigurationInvalidException} naming the field, before anything is written; the limits themselves are
 * accepted and stored; query bounds beyond them mean no bound; a result wait of any length is accepted.
 */
@RunlaneDatabaseTest
class TimeBoundsIntegrationTests {

    private static final Duration TOO_LONG = TimeRules.LONGEST.plusMillis(1);

    private static final Instant BEFORE_YEAR_1 = Instant.parse("0000-12-31T23:59:59.999999Z");

    private static final Instant AFTER_YEAR_9999 = Instant.parse("+10000-01-01T00:00:00Z");

    /** What each {@link TimedCalls} run's call threw, by run id: the field named, or "none". */
    static final Map<UUID, String> REFUSED_FIELDS = new ConcurrentHashMap<>();

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static RunlaneTemplate template;

    private static int sequence;

    @BeforeAll
    static void startRunlane(@FreshSchema("time_bounds") String schema) {
        runlane = TestRunlane.withExecution(
                        dataSource,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(100)),
                        EngineListener.NONE,
                        new Plain(),
                        new TimedCalls())
                .startWorker();
        template = runlane.template();
        template.trigger(Plain.ID, new Plain.Payload("seed"));
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    static Stream<Arguments> badTriggerOptions() {
        return Stream.of(
                Arguments.of(
                        "runAt",
                        "a runAt before the year 1",
                        TriggerOptions.builder().runAt(BEFORE_YEAR_1)),
                Arguments.of(
                        "runAt",
                        "a runAt after the year 9999",
                        TriggerOptions.builder().runAt(AFTER_YEAR_9999)),
                Arguments.of(
                        "runAt",
                        "Instant.MAX as runAt",
                        TriggerOptions.builder().runAt(Instant.MAX)),
                Arguments.of(
                        "runAt",
                        "Instant.MIN as runAt",
                        TriggerOptions.builder().runAt(Instant.MIN)),
                Arguments.of(
                        "delay",
                        "a delay over 1,000 years",
                        TriggerOptions.builder().delay(TOO_LONG)),
                Arguments.of(
                        "delay",
                        "a delay too long for milliseconds",
                        TriggerOptions.builder().delay(Duration.ofSeconds(Long.MAX_VALUE))),
                Arguments.of(
                        "idempotencyKeyTtl",
                        "a key retention over 1,000 years",
                        TriggerOptions.builder().idempotencyKey("k").idempotencyKeyTtl(IdempotencyKeyTtl.of(TOO_LONG))),
                Arguments.of(
                        "idempotencyKeyTtl",
                        "a key retention too long for milliseconds",
                        TriggerOptions.builder()
                                .idempotencyKey("k")
                                .idempotencyKeyTtl(IdempotencyKeyTtl.of(Duration.ofSeconds(Long.MAX_VALUE)))));
    }

    /** S-ID-10 */
    @ParameterizedTest(name = "{1} is refused naming {0}, and nothing is written")
    @MethodSource("badTriggerOptions")
    void outOfRangeTriggerOptionIsRefusedNamingTheField(
            String field, String description, TriggerOptions.Builder options) {
        ConfigurationInvalidException single = refusedWithoutWrites(
                () -> template.trigger(Plain.ID, new Plain.Payload("bad-" + sequence++), options.build()));
        assertThat(single.field()).isEqualTo(field);
        assertThat(single.getMessage()).startsWith(field + " must");

        ConfigurationInvalidException batch = refusedWithoutWrites(() -> template.triggerAll(List.of(
                TriggerRequest.of(Plain.ID, new Plain.Payload("fine-" + sequence++)),
                TriggerRequest.of(Plain.ID, new Plain.Payload("bad-" + sequence++), options.build()))));
        assertThat(batch.field()).isEqualTo(field);
    }

    /** S-ID-10 */
    @Test
    void runAtTimesAtTheLimitsAreStored() {
        Instant earliest = TimeRules.EARLIEST;
        Run first = template.trigger(
                        Plain.ID,
                        new Plain.Payload("earliest"),
                        TriggerOptions.builder().runAt(earliest).build())
                .run();
        assertThat(first.runAt()).isEqualTo(earliest);

        Instant latest = Instant.parse("9999-12-31T23:59:59.999999Z");
        Run last = template.trigger(
                        Plain.ID,
                        new Plain.Payload("latest"),
                        TriggerOptions.builder().runAt(latest).build())
                .run();
        assertThat(last.runAt()).isEqualTo(latest);
        assertThat(last.status()).isEqualTo(RunStatus.SCHEDULED);
        assertThat(runlane.run(last.id()).runAt()).isEqualTo(latest);
    }

    /** S-ID-10, S-OP-13: the last nanosecond of the year 9999 rounds up to the microsecond, alone or in a batch. */
    @Test
    void latestRunAtIsStoredTheSameAloneAndInABatch() {
        TriggerOptions latest = TriggerOptions.builder().runAt(TimeRules.LATEST).build();
        Run alone = template.trigger(Plain.ID, new Plain.Payload("latest-alone"), latest)
                .run();
        Run inBatch = template.triggerAll(
                        List.of(TriggerRequest.of(Plain.ID, new Plain.Payload("latest-batch"), latest)))
                .get(0)
                .run();

        Instant roundedUp = Instant.parse("+10000-01-01T00:00:00Z");
        assertThat(alone.runAt()).isEqualTo(roundedUp);
        assertThat(inBatch.runAt()).isEqualTo(roundedUp);
    }

    /** S-ID-10 */
    @Test
    void delayAndKeyRetentionOfExactly1000YearsAreStored() {
        Instant before = Instant.now();
        TriggerResult result = template.trigger(
                Plain.ID,
                new Plain.Payload("thousand-years"),
                TriggerOptions.builder()
                        .delay(TimeRules.LONGEST)
                        .idempotencyKey("thousand-years")
                        .idempotencyKeyTtl(IdempotencyKeyTtl.of(TimeRules.LONGEST))
                        .build());
        assertThat(result.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(result.run().runAt()).isAfter(before.plus(TimeRules.LONGEST).minus(1, ChronoUnit.HOURS));
        assertThat(result.run().idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(TimeRules.LONGEST));

        Run finished = runlane.finish(result.run().id(), RunStatus.SUCCEEDED);
        assertThat(finished.idempotencyRetainedUntil()).isAfter(Instant.now().plus(Duration.ofDays(365_000)));
        TriggerResult duplicate = template.trigger(
                Plain.ID,
                new Plain.Payload("thousand-years"),
                TriggerOptions.builder().idempotencyKey("thousand-years").build());
        assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(duplicate.run().id()).isEqualTo(result.run().id());
    }

    /** S-ID-10 */
    @Test
    void pruneAgeOver1000YearsIsRefusedAndAtTheLimitPrunesNothing() {
        Run finished = succeeded(
                template.trigger(Plain.ID, new Plain.Payload("prunable")).run().id());
        runlane.age(finished.id(), Duration.ofDays(400));

        ConfigurationInvalidException ex =
                refusedWithoutWrites(() -> template.runs().prune(PruneRequest.olderThan(TOO_LONG)));
        assertThat(ex.field()).isEqualTo("olderThan");

        assertThat(template.runs()
                        .prune(PruneRequest.olderThan(TimeRules.LONGEST))
                        .runs())
                .isZero();
        assertThat(template.runs().get(finished.id())).isPresent();
    }

    /** S-ID-10 */
    @Test
    void queryBoundsBeyondTheRangeMeanNoBound() {
        UUID runId =
                template.trigger(Plain.ID, new Plain.Payload("listed")).run().id();

        assertThat(template.runs()
                        .list(RunQuery.builder()
                                .createdBetween(Instant.MIN, Instant.MAX)
                                .limit(500)
                                .build())
                        .items())
                .extracting(Run::id)
                .contains(runId);
        assertThat(template.runs()
                        .list(RunQuery.builder()
                                .createdBetween(Instant.MAX, null)
                                .build())
                        .items())
                .isEmpty();
        assertThat(template.runs()
                        .list(RunQuery.builder()
                                .createdBetween(null, Instant.MIN)
                                .build())
                        .items())
                .isEmpty();
        assertThat(template.runs()
                        .list(RunQuery.builder()
                                .finishedBetween(Instant.MIN, Instant.MAX)
                                .build())
                        .items())
                .allSatisfy(run -> assertThat(run.finishedAt()).isNotNull());
    }

    /** S-ID-10 */
    @Test
    void resultWaitOfAnyLengthIsAccepted() {
        UUID runId =
                template.trigger(Plain.ID, new Plain.Payload("awaited")).run().id();

        assertThat(template.runs().awaitResult(runId, Void.class, Duration.ofSeconds(Long.MAX_VALUE)))
                .isNull();
        assertThat(runlane.run(runId).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    static Stream<Arguments> badHandlerCalls() {
        return Stream.of(
                Arguments.of("sleep", "duration"),
                Arguments.of("release", "delay"),
                Arguments.of("awaitSignal", "timeout"),
                Arguments.of("awaitResult", "timeout"));
    }

    /** S-ID-10 */
    @ParameterizedTest(name = "{0} longer than 1,000 years is refused naming {1}")
    @MethodSource("badHandlerCalls")
    void durableWaitOver1000YearsIsRefusedInTheHandler(String call, String field) {
        UUID runId = template.trigger(TimedCalls.ID, new TimedCalls.Payload(call, TOO_LONG))
                .run()
                .id();

        succeeded(runId);
        assertThat(REFUSED_FIELDS).containsEntry(runId, field);
        assertThat(template.runs().steps(runId)).isEmpty();
    }

    /** S-ID-10 */
    @Test
    void settingsAndDeclarationsOver1000YearsAreRefused() {
        assertThat(catchThrowable(() ->
                        RunlaneSettings.defaults("any").withDefaultIdempotencyKeyTtl(IdempotencyKeyTtl.of(TOO_LONG))))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("runlane.idempotency.default-ttl"));
        assertThat(catchThrowable(
                        () -> PruningSettings.defaults().withRetention(Map.of(RunStatus.SUCCEEDED, TOO_LONG))))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("runlane.pruning.retention.succeeded"));
        assertThat(catchThrowable(() -> new ScheduleSettings(Duration.ofSeconds(10), TOO_LONG)))
                .isInstanceOfSatisfying(
                        ConfigurationInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("runlane.schedules.catch-up-window"));
    }

    private static Run succeeded(UUID runId) {
        return await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.run(runId), run -> run.status() == RunStatus.SUCCEEDED);
    }

    private static ConfigurationInvalidException refusedWithoutWrites(ThrowingCallable call) {
        TestRunlane.RowCounts before = runlane.rowCounts();
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(ConfigurationInvalidException.class);
        assertThat(runlane.rowCounts()).as("rows after the refused call").isEqualTo(before);
        return (ConfigurationInvalidException) thrown;
    }

    @Task(id = Plain.ID)
    public static class Plain implements TaskHandler<Plain.Payload> {

        static final String ID = "time-bounds.plain";

        public record Payload(String id) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Makes one durable call with the payload's duration and records the field its refusal named. */
    @Task(id = TimedCalls.ID, maxAttempts = 1)
    public static class TimedCalls implements TaskHandler<TimedCalls.Payload> {

        static final String ID = "time-bounds.calls";

        public record Payload(String call, Duration duration) {}

        @Override
        public void run(Payload payload, RunContext context) {
            String field = "none";
            try {
                switch (payload.call()) {
                    case "sleep" -> context.sleep("nap", payload.duration());
                    case "release" -> context.release(payload.duration(), "later");
                    case "awaitSignal" -> context.awaitSignal("go", String.class, payload.duration());
                    case "awaitResult" -> context.awaitResult(UUID.randomUUID(), String.class, payload.duration());
                    default -> throw new IllegalArgumentException(payload.call());
                }
            } catch (ConfigurationInvalidException ex) {
                field = ex.field();
            }
            REFUSED_FIELDS.put(context.runId(), field);
        }
    }
}

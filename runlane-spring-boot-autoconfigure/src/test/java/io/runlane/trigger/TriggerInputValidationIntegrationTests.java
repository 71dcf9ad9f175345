package io.runlane.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.InvalidKeyException;
import io.runlane.KeyResolverException;
import io.runlane.PayloadValidationException;
import io.runlane.RunContext;
import io.runlane.RunNotFoundException;
import io.runlane.RunlaneException;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TaskNotFoundException;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input to a trigger or an operator call fails with a typed {@link RunlaneException} before anything is written:
 * no run, no event, no key ownership (S-ID-1, S-ID-3, S-ID-4, S-ID-5, S-IK-6). Every refusal is checked against the
 * row counts of all of Runlane's tables.
 */
@RunlaneDatabaseTest
class TriggerInputValidationIntegrationTests {

    private static final String DECLARED_QUEUE = "reports";

    private static final String LONGEST_QUEUE = "q".repeat(255);

    private static final ThrowingResolversTask THROWING_RESOLVERS = new ThrowingResolversTask();

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static RunlaneTemplate template;

    @BeforeAll
    static void startRunlane(@FreshSchema("trigger_input") String schema) {
        List<TaskHandler<?>> handlers = new ArrayList<>(Arrays.asList(TestTasks.all()));
        handlers.add(new KeyedTask());
        handlers.add(THROWING_RESOLVERS);
        handlers.add(new SneakyResolverTask());
        runlane = TestRunlane.start(
                dataSource,
                schema,
                settings -> settings.withQueues(Set.of(DECLARED_QUEUE, LONGEST_QUEUE)),
                handlers.toArray(TaskHandler<?>[]::new));
        template = runlane.template();
        // One stored run with every kind of key, so that a refused call has rows it could disturb.
        template.trigger(KeyedTask.ID, new KeyedTask.Payload("seed-idempotency", "seed-singleton", "seed-concurrency"));
    }

    // S-ID-1: every id and key is checked, whether it comes from the call or from a task's resolver.

    static Stream<Arguments> invalidValues() {
        return Stream.of(
                Arguments.of("is empty", ""),
                Arguments.of("has 256 characters", "k".repeat(256)),
                Arguments.of("contains ':'", "tenant:42"),
                Arguments.of("contains NUL", "a\u0000b"),
                Arguments.of("contains a line feed", "a\nb"),
                Arguments.of("contains DEL", "a\u007fb"),
                Arguments.of("starts with a space", " key"),
                Arguments.of("ends with a space", "key "),
                Arguments.of("starts with a no-break space", "\u00a0key"),
                Arguments.of("ends with a no-break space", "key\u00a0"));
    }

    static Stream<Arguments> invalidOptions() {
        return Stream.of("idempotencyKey", "singletonKey", "concurrencyKey", "queue")
                .flatMap(field -> invalidValues().map(value -> Arguments.of(field, value.get()[0], value.get()[1])));
    }

    static Stream<Arguments> invalidResolvedKeys() {
        return Stream.of("idempotencyKey", "singletonKey", "concurrencyKey")
                .flatMap(field -> invalidValues().map(value -> Arguments.of(field, value.get()[0], value.get()[1])));
    }

    /** S-ID-1 */
    @ParameterizedTest(name = "a taskId that {0} is rejected as an invalid key and nothing is written")
    @MethodSource("invalidValues")
    void invalidTaskIdIsRejectedAsAnInvalidKeyAndNothingIsWritten(String description, String taskId) {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class, () -> template.trigger(taskId, new SendMail.Payload("a@example.com")));
        assertNamesTheField(ex, "taskId");
    }

    /** S-ID-1 */
    @ParameterizedTest(name = "a {0} option that {1} is rejected and nothing is written")
    @MethodSource("invalidOptions")
    void invalidKeyFromTriggerOptionsIsRejectedAndNothingIsWritten(String field, String description, String value) {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class,
                () -> template.trigger(KeyedTask.ID, KeyedTask.Payload.NONE, optionsWith(field, value)));
        assertNamesTheField(ex, field);
    }

    /** S-ID-1, S-ID-3 */
    @ParameterizedTest(name = "a resolved {0} that {1} is rejected and nothing is written")
    @MethodSource("invalidResolvedKeys")
    void invalidKeyFromATaskResolverIsRejectedAndNothingIsWritten(String field, String description, String value) {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class, () -> template.trigger(KeyedTask.ID, KeyedTask.Payload.with(field, value)));
        assertNamesTheField(ex, field);
    }

    /** S-ID-1 */
    @ParameterizedTest(name = "a {0} option of 255 characters is accepted")
    @MethodSource("keyFields")
    void keyOf255CharactersFromTriggerOptionsIsAccepted(String field) {
        String value = longestValue(field + ".option.");

        TriggerResult result = template.trigger(KeyedTask.ID, KeyedTask.Payload.NONE, optionsWith(field, value));

        assertThat(result.created()).isTrue();
        assertThat(storedValue(result, field)).isEqualTo(value);
    }

    /** S-ID-1 */
    @ParameterizedTest(name = "a resolved {0} of 255 characters is accepted")
    @MethodSource("keyFields")
    void keyOf255CharactersFromAResolverIsAccepted(String field) {
        String value = longestValue(field + ".resolver.");

        TriggerResult result = template.trigger(KeyedTask.ID, KeyedTask.Payload.with(field, value));

        assertThat(result.created()).isTrue();
        assertThat(storedValue(result, field)).isEqualTo(value);
    }

    static Stream<String> keyFields() {
        return Stream.of("idempotencyKey", "singletonKey", "concurrencyKey");
    }

    /** S-ID-1, S-QC-1 */
    @Test
    void declaredQueueNameOf255CharactersIsAcceptedAsAnOverride() {
        TriggerResult result = template.trigger(
                KeyedTask.ID,
                KeyedTask.Payload.NONE,
                TriggerOptions.builder().queue(LONGEST_QUEUE).build());

        assertThat(result.run().queue()).isEqualTo(LONGEST_QUEUE);
    }

    /** S-ID-1 */
    @Test
    void invalidTaskIdInABatchIsRejectedAsAnInvalidKeyAndNothingIsWritten() {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class,
                () -> template.triggerAll(List.of(
                        TriggerRequest.of("mail.send", new SendMail.Payload("a@example.com")),
                        TriggerRequest.of("mail:send", new SendMail.Payload("b@example.com")))));
        assertNamesTheField(ex, "requests[1].taskId");
    }

    /** S-ID-1 */
    @Test
    void invalidKeyInTheLastItemOfABatchWritesNothingForTheEarlierItems() {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class,
                () -> template.triggerAll(List.of(
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload("batch-ok-1", 1)),
                        TriggerRequest.of(
                                KeyedTask.ID,
                                KeyedTask.Payload.NONE,
                                TriggerOptions.builder().singletonKey("bad:key").build()))));
        assertNamesTheField(ex, "singletonKey");
    }

    // S-ID-3: a resolver that throws fails the call with the resolver's exception as the cause.

    /** S-ID-3 */
    @ParameterizedTest(name = "a throwing {0} resolver fails the trigger, wrapping the cause, and nothing is written")
    @MethodSource("keyFields")
    void throwingResolverFailsTheTriggerWrappingItsExceptionAndNothingIsWritten(String field) {
        KeyResolverException ex = rejectedWithoutWrites(
                KeyResolverException.class,
                () -> template.trigger(ThrowingResolversTask.ID, new ThrowingResolversTask.Payload(field)));

        assertThat(ex).isInstanceOf(RunlaneException.class);
        assertThat(ex.code()).isEqualTo("key_resolver_failed");
        assertThat(ex.getCause()).isSameAs(THROWING_RESOLVERS.lastFailure);
        assertThat(ex.getMessage()).contains(field).contains(ThrowingResolversTask.ID);
    }

    /** S-ID-3 */
    @Test
    void throwingResolverInABatchWritesNothingForTheOtherItems() {
        KeyResolverException ex = rejectedWithoutWrites(
                KeyResolverException.class,
                () -> template.triggerAll(List.of(
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload("batch-ok-2", 1)),
                        TriggerRequest.of(
                                ThrowingResolversTask.ID, new ThrowingResolversTask.Payload("idempotencyKey")))));
        assertThat(ex.getCause()).isSameAs(THROWING_RESOLVERS.lastFailure);
    }

    /**
     * S-ID-3, S-ID-6: resolvers written in Kotlin (or with sneaky throws) can throw checked exceptions; they must be wrapped
     * like any other failure rather than escape the trigger call unwrapped.
     */
    @Test
    void resolverThrowingACheckedExceptionIsWrappedLikeAnyOtherFailure() {
        KeyResolverException ex = rejectedWithoutWrites(
                KeyResolverException.class,
                () -> template.trigger(SneakyResolverTask.ID, new SneakyResolverTask.Payload("s-1")));
        assertThat(ex.getCause()).isInstanceOf(java.io.IOException.class).hasMessage("key service unreachable");
    }

    /** S-TR-2: an option replaces the resolver for its field, so a throwing resolver is never called. */
    @Test
    void optionForAFieldReplacesItsThrowingResolver() {
        TriggerResult result = template.trigger(
                ThrowingResolversTask.ID,
                new ThrowingResolversTask.Payload("singletonKey"),
                TriggerOptions.builder().singletonKey("explicit-singleton").build());

        assertThat(result.created()).isTrue();
        assertThat(result.run().singletonKey()).isEqualTo("explicit-singleton");
    }

    /** S-TR-2, S-ID-1: a valid option is used even where the resolver would return an invalid key. */
    @Test
    void validOptionReplacesAnInvalidResolvedKey() {
        TriggerResult result = template.trigger(
                KeyedTask.ID,
                KeyedTask.Payload.with("concurrencyKey", "tenant:7"),
                TriggerOptions.builder().concurrencyKey("tenant-7").build());

        assertThat(result.run().concurrencyKey()).isEqualTo("tenant-7");
    }

    // S-ID-4: the payload is typed and validated before anything is written.

    /** S-ID-4 */
    @Test
    void nullPayloadIsRejectedAndNothingIsWritten() {
        PayloadValidationException ex =
                rejectedWithoutWrites(PayloadValidationException.class, () -> template.trigger("orders.confirm", null));

        assertThat(ex.code()).isEqualTo("payload_invalid");
        assertThat(ex.taskId()).isEqualTo("orders.confirm");
        assertThat(ex.violations()).containsExactly("payload: must not be null");
    }

    /** S-ID-4 */
    @Test
    void nullPayloadIsRejectedWhenTriggeredByHandlerClass() {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class, () -> template.trigger(ConfirmOrder.class, null));

        assertThat(ex.violations()).containsExactly("payload: must not be null");
    }

    static Stream<Arguments> payloadsThatDoNotConvert() {
        return Stream.of(
                Arguments.of("a string", "order o-1, twice"),
                Arguments.of("a number", 42),
                Arguments.of("a list", List.of("o-1", 2)),
                Arguments.of("a boolean", true),
                Arguments.of("a map with a quantity that is no number", Map.of("orderId", "o-1", "quantity", "many")));
    }

    /** S-ID-4 */
    @ParameterizedTest(name = "{0} as payload is rejected and nothing is written")
    @MethodSource("payloadsThatDoNotConvert")
    void payloadOfAWrongTypeThatDoesNotConvertIsRejectedAndNothingIsWritten(String description, Object payload) {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class, () -> template.trigger("orders.confirm", payload));

        assertThat(ex.code()).isEqualTo("payload_invalid");
        assertThat(ex.violations())
                .singleElement()
                .asString()
                .startsWith("payload: ")
                .contains(ConfirmOrder.Payload.class.getName())
                .contains(payload.getClass().getName());
    }

    /** S-ID-4: another task's payload is mapped by its JSON shape, and what it lacks is reported as violations. */
    @Test
    void anotherTasksPayloadIsRejectedAndNothingIsWritten() {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class,
                () -> template.trigger("orders.confirm", new TestTasks.BuildReport.Payload("r-1")));

        assertThat(ex.code()).isEqualTo("payload_invalid");
        assertThat(ex.violations()).isNotEmpty();
    }

    /** S-ID-4 */
    @Test
    void everyConstraintViolationIsListed() {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class,
                () -> template.trigger("orders.confirm", new ConfirmOrder.Payload(" ".repeat(41), -3)));

        assertThat(ex.code()).isEqualTo("payload_invalid");
        assertThat(ex.violations())
                .hasSize(3)
                .filteredOn(violation -> violation.startsWith("orderId: "))
                .hasSize(2);
        assertThat(ex.violations())
                .filteredOn(violation -> violation.startsWith("quantity: "))
                .hasSize(1);
        assertThat(ex.getMessage()).contains(ex.violations());
    }

    /** S-ID-4 */
    @Test
    void blankIdAndNonPositiveQuantityAreBothReported() {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class,
                () -> template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("", 0)));

        assertThat(ex.violations())
                .satisfiesExactlyInAnyOrder(
                        violation -> assertThat(violation).startsWith("orderId: "),
                        violation -> assertThat(violation).startsWith("quantity: "));
    }

    /** S-ID-4 */
    @Test
    void tooLongIdAloneIsReported() {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class,
                () -> template.trigger("orders.confirm", new ConfirmOrder.Payload("o".repeat(41), 1)));

        assertThat(ex.violations()).singleElement().asString().startsWith("orderId: ");
    }

    /** S-ID-4, S-ID-7 */
    @Test
    void mapThatConvertsToAnInvalidPayloadIsRejectedWithEveryViolation() {
        PayloadValidationException ex = rejectedWithoutWrites(
                PayloadValidationException.class,
                () -> template.trigger("orders.confirm", Map.of("orderId", "", "quantity", 0)));

        assertThat(ex.violations()).hasSize(2);
    }

    /** S-ID-4, S-ID-7 */
    @Test
    void mapThatConvertsToAValidPayloadIsAcceptedAndKeyedLikeTheRecord() {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("orderId", "o-map-1");
        payload.put("quantity", 2);

        TriggerResult result = template.trigger("orders.confirm", payload);

        assertThat(result.created()).isTrue();
        assertThat(result.run().idempotencyKey()).isEqualTo("order.o-map-1");
        assertThat(result.run().payloadJson()).contains("\"orderId\"").contains("o-map-1");
        TriggerResult again = template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-map-1", 2));
        assertThat(again.created()).isFalse();
        assertThat(again.runId()).isEqualTo(result.runId());
    }

    // S-ID-5: unknown tasks and runs.

    /** S-ID-5 */
    @Test
    void unknownTaskIdIsRejectedAndNothingIsWritten() {
        TaskNotFoundException ex = rejectedWithoutWrites(
                TaskNotFoundException.class,
                () -> template.trigger("orders.unknown", new ConfirmOrder.Payload("o-1", 1)));

        assertThat(ex.code()).isEqualTo("task_not_found");
        assertThat(ex.getMessage()).contains("orders.unknown");
    }

    /** S-ID-5 */
    @Test
    void unregisteredHandlerClassIsRejectedAndNothingIsWritten() {
        TaskNotFoundException ex = rejectedWithoutWrites(
                TaskNotFoundException.class,
                () -> template.trigger(UnregisteredTask.class, new UnregisteredTask.Payload("x")));

        assertThat(ex.code()).isEqualTo("task_not_found");
        assertThat(ex.getMessage()).contains(UnregisteredTask.class.getName());
    }

    /** S-ID-5 */
    @Test
    void unknownTaskInABatchWritesNothingForTheOtherItems() {
        rejectedWithoutWrites(
                TaskNotFoundException.class,
                () -> template.triggerAll(List.of(
                        TriggerRequest.of("orders.confirm", new ConfirmOrder.Payload("batch-ok-3", 1)),
                        TriggerRequest.of("orders.unknown", new ConfirmOrder.Payload("batch-ok-4", 1)))));
    }

    /** S-ID-5 */
    @Test
    void unknownRunIdReadsAsEmpty() {
        assertThat(template.runs().get(UUID.randomUUID())).isEmpty();
    }

    /** S-ID-5 */
    @Test
    void eventsOfAnUnknownRunFailWithRunNotFound() {
        UUID unknown = UUID.randomUUID();

        RunNotFoundException ex = rejectedWithoutWrites(
                RunNotFoundException.class, () -> template.runs().events(unknown));

        assertThat(ex.code()).isEqualTo("run_not_found");
        assertThat(ex.runId()).isEqualTo(unknown);
    }

    // S-IK-6 and the other per-call options.

    /** S-IK-6, S-IK-11 */
    @Test
    void idempotencyKeyTtlWithoutAnyIdempotencyKeyIsRejectedAndNothingIsWritten() {
        ConfigurationInvalidException ex = rejectedWithoutWrites(
                ConfigurationInvalidException.class,
                () -> template.trigger(
                        "mail.send",
                        new SendMail.Payload("a@example.com"),
                        TriggerOptions.builder()
                                .idempotencyKeyTtl(IdempotencyKeyTtl.parse("1h"))
                                .build()));

        assertThat(ex.code()).isEqualTo("configuration_invalid");
        assertThat(ex.getMessage()).contains("idempotencyKeyTtl");
    }

    /** S-IK-6: a resolver that returns no key leaves the TTL without a key too, and a singleton key is no substitute. */
    @Test
    void activeTtlWithAResolverThatReturnsNoKeyIsRejectedAndNothingIsWritten() {
        rejectedWithoutWrites(
                ConfigurationInvalidException.class,
                () -> template.trigger(
                        KeyedTask.ID,
                        KeyedTask.Payload.with("singletonKey", "ttl-without-key"),
                        TriggerOptions.builder()
                                .idempotencyKeyTtl(IdempotencyKeyTtl.active())
                                .build()));
    }

    /** S-IK-6 */
    @Test
    void idempotencyKeyTtlWithAnIdempotencyKeyOptionIsStoredWithTheRun() {
        TriggerResult result = template.trigger(
                "mail.send",
                new SendMail.Payload("a@example.com"),
                TriggerOptions.builder()
                        .idempotencyKey("mail-ttl-1")
                        .idempotencyKeyTtl(IdempotencyKeyTtl.parse("15m"))
                        .build());

        assertThat(result.run().idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(Duration.ofMinutes(15)));
    }

    /** S-TR-4, S-TR-7 */
    @Test
    void delayCombinedWithRunAtIsRejectedAndNothingIsWritten() {
        ConfigurationInvalidException ex = rejectedWithoutWrites(
                ConfigurationInvalidException.class,
                () -> template.trigger(
                        "orders.confirm",
                        new ConfirmOrder.Payload("o-delay-and-run-at", 1),
                        TriggerOptions.builder()
                                .delay(Duration.ofMinutes(1))
                                .runAt(Instant.now().plusSeconds(60))
                                .build()));

        assertThat(ex.code()).isEqualTo("configuration_invalid");
        assertThat(ex.getMessage()).contains("delay").contains("runAt");
    }

    /** S-TR-4 */
    @Test
    void negativeDelayIsRejectedAndNothingIsWritten() {
        ConfigurationInvalidException ex = rejectedWithoutWrites(
                ConfigurationInvalidException.class,
                () -> template.trigger(
                        "orders.confirm",
                        new ConfirmOrder.Payload("o-negative-delay", 1),
                        TriggerOptions.builder().delay(Duration.ofSeconds(-1)).build()));

        assertThat(ex.getMessage()).contains("delay");
    }

    /** S-QC-1 */
    @Test
    void undeclaredQueueOverrideIsRejectedAndNothingIsWritten() {
        ConfigurationInvalidException ex = rejectedWithoutWrites(
                ConfigurationInvalidException.class,
                () -> template.trigger(
                        "orders.confirm",
                        new ConfirmOrder.Payload("o-undeclared-queue", 1),
                        TriggerOptions.builder().queue("imports").build()));

        assertThat(ex.code()).isEqualTo("configuration_invalid");
        assertThat(ex.getMessage()).contains("queue").contains("'imports'");
    }

    /** S-QC-1 */
    @Test
    void declaredQueueOverrideIsUsed() {
        TriggerResult result = template.trigger(
                "orders.confirm",
                new ConfirmOrder.Payload("o-declared-queue", 1),
                TriggerOptions.builder().queue(DECLARED_QUEUE).build());

        assertThat(result.run().queue()).isEqualTo(DECLARED_QUEUE);
    }

    // S-IK-8 and S-OP-1 operator calls check their input the same way.

    /** S-IK-8, S-ID-1 */
    @ParameterizedTest(name = "resetting a key that {0} is rejected and nothing is written")
    @MethodSource("invalidValues")
    void resetWithAnInvalidKeyIsRejectedAndNothingIsWritten(String description, String key) {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class, () -> template.idempotencyKeys().reset("orders.confirm", key));

        assertThat(ex.code()).isEqualTo("invalid_key");
    }

    /** S-IK-8, S-ID-1 */
    @Test
    void resetWithAnInvalidTaskIdIsRejectedAndNothingIsWritten() {
        InvalidKeyException ex = rejectedWithoutWrites(
                InvalidKeyException.class, () -> template.idempotencyKeys().reset("orders:confirm", "order.o-1"));

        assertNamesTheField(ex, "taskId");
    }

    /** S-IK-8, S-ID-5 */
    @Test
    void resetOfAnUnknownTaskIsRejectedAndNothingIsWritten() {
        TaskNotFoundException ex = rejectedWithoutWrites(
                TaskNotFoundException.class, () -> template.idempotencyKeys().reset("orders.unknown", "order.o-1"));

        assertThat(ex.code()).isEqualTo("task_not_found");
    }

    /** S-IK-8 */
    @Test
    void resetOfAKeyWithoutOwnerReturnsFalseAndWritesNothing() {
        var before = runlane.rowCounts();

        assertThat(template.idempotencyKeys().reset("orders.confirm", "order.never-triggered"))
                .isFalse();
        assertThat(runlane.rowCounts()).isEqualTo(before);
    }

    /** S-OP-1 */
    @Test
    void findActiveWithNeitherKeyIsRejected() {
        RunlaneException ex = rejectedWithoutWrites(
                RunlaneException.class, () -> template.runs().findActive("orders.confirm", null, null));

        assertThat(ex.getMessage()).contains("idempotencyKey").contains("singletonKey");
    }

    /** S-OP-1, S-ID-1 */
    @Test
    void findActiveAndFindCurrentCheckTheirKeys() {
        assertNamesTheField(
                rejectedWithoutWrites(
                        InvalidKeyException.class,
                        () -> template.runs().findActive("orders.confirm", null, "customer:1")),
                "singletonKey");
        assertNamesTheField(
                rejectedWithoutWrites(
                        InvalidKeyException.class,
                        () -> template.runs().findActive("orders:confirm", "order.o-1", null)),
                "taskId");
        assertNamesTheField(
                rejectedWithoutWrites(
                        InvalidKeyException.class, () -> template.runs().findCurrent("orders.confirm", " order")),
                "idempotencyKey");
    }

    private static <T extends Throwable> T rejectedWithoutWrites(Class<T> type, ThrowingCallable call) {
        TestRunlane.RowCounts before = runlane.rowCounts();
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(type);
        assertThat(runlane.rowCounts()).as("rows after the refused call").isEqualTo(before);
        return type.cast(thrown);
    }

    private static void assertNamesTheField(InvalidKeyException ex, String field) {
        assertThat(ex.code()).isEqualTo("invalid_key");
        assertThat(ex.field()).isEqualTo(field);
        assertThat(ex.getMessage()).startsWith(field + " ");
    }

    private static TriggerOptions optionsWith(String field, String value) {
        TriggerOptions.Builder builder = TriggerOptions.builder();
        switch (field) {
            case "idempotencyKey" -> builder.idempotencyKey(value);
            case "singletonKey" -> builder.singletonKey(value);
            case "concurrencyKey" -> builder.concurrencyKey(value);
            case "queue" -> builder.queue(value);
            default -> throw new IllegalArgumentException(field);
        }
        return builder.build();
    }

    private static @Nullable String storedValue(TriggerResult result, String field) {
        return switch (field) {
            case "idempotencyKey" -> result.run().idempotencyKey();
            case "singletonKey" -> result.run().singletonKey();
            case "concurrencyKey" -> result.run().concurrencyKey();
            default -> throw new IllegalArgumentException(field);
        };
    }

    private static String longestValue(String prefix) {
        return prefix + "x".repeat(255 - prefix.length());
    }

    /** A task whose resolvers return whatever its payload says, so that tests control every resolved key. */
    @Task(id = KeyedTask.ID)
    public static class KeyedTask implements TaskHandler<KeyedTask.Payload> {

        static final String ID = "validation.keyed";

        public record Payload(
                @Nullable String idempotencyKey,
                @Nullable String singletonKey,
                @Nullable String concurrencyKey) {

            static final Payload NONE = new Payload(null, null, null);

            static Payload with(String field, String value) {
                return switch (field) {
                    case "idempotencyKey" -> new Payload(value, null, null);
                    case "singletonKey" -> new Payload(null, value, null);
                    case "concurrencyKey" -> new Payload(null, null, value);
                    default -> throw new IllegalArgumentException(field);
                };
            }
        }

        @Override
        public @Nullable String idempotencyKey(Payload payload) {
            return payload.idempotencyKey();
        }

        @Override
        public @Nullable String singletonKey(Payload payload) {
            return payload.singletonKey();
        }

        @Override
        public @Nullable String concurrencyKey(Payload payload) {
            return payload.concurrencyKey();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A task whose resolver named by the payload throws; it remembers what it threw. */
    @Task(id = ThrowingResolversTask.ID)
    public static class ThrowingResolversTask implements TaskHandler<ThrowingResolversTask.Payload> {

        static final String ID = "validation.throwing-resolvers";

        volatile @Nullable RuntimeException lastFailure;

        public record Payload(String failingResolver) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return resolve(payload, "idempotencyKey");
        }

        @Override
        public String singletonKey(Payload payload) {
            return resolve(payload, "singletonKey");
        }

        @Override
        public String concurrencyKey(Payload payload) {
            return resolve(payload, "concurrencyKey");
        }

        private String resolve(Payload payload, String resolver) {
            if (payload.failingResolver().equals(resolver)) {
                RuntimeException failure = new IllegalStateException(resolver + " lookup failed");
                lastFailure = failure;
                throw failure;
            }
            return resolver + "." + UUID.randomUUID();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A task whose resolver throws a checked exception, as Kotlin code or a sneaky throw can. */
    @Task(id = SneakyResolverTask.ID)
    public static class SneakyResolverTask implements TaskHandler<SneakyResolverTask.Payload> {

        static final String ID = "validation.sneaky-resolver";

        public record Payload(String value) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return SneakyResolverTask.<RuntimeException>sneakyThrow(new java.io.IOException("key service unreachable"));
        }

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> String sneakyThrow(Throwable failure) throws E {
            throw (E) failure;
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Declared, but not registered with the engine under test. */
    @Task(id = "validation.unregistered")
    public static class UnregisteredTask implements TaskHandler<UnregisteredTask.Payload> {

        public record Payload(String value) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }
}

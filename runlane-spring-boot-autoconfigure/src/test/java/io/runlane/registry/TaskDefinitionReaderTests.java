package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ResolvableType;

/** A bad {@code @Task} declaration fails when it is read, naming the class (S-ID-2, S-QC-1). */
@DisplayName("S-ID-2 task declarations")
class TaskDefinitionReaderTests {

    private static final RunlaneSettings SETTINGS =
            new RunlaneSettings("default", "runlane", IdempotencyKeyTtl.parse("30d"), 5, Set.of("reports"));

    private final TaskDefinitionReader reader = new TaskDefinitionReader(SETTINGS);

    @Test
    void declarationWithOnlyAnIdGetsTheConfiguredDefaults() {
        TaskDefinition definition = reader.read(new PlainTask());

        assertThat(definition.id()).isEqualTo("reader.plain");
        assertThat(definition.queue()).isEqualTo("default");
        assertThat(definition.handlerClass()).isEqualTo(PlainTask.class);
        assertThat(definition.payloadClass()).isEqualTo(PlainTask.Payload.class);
        assertThat(definition.payloadType()).isEqualTo(PlainTask.Payload.class);
        assertThat(definition.idempotencyKeyTtl())
                .as("resolved at trigger time")
                .isNull();
        assertThat(definition.maxAttempts()).isEqualTo(5);
        assertThat(definition.backoff()).isNull();
        assertThat(definition.timeout()).isNull();
        assertThat(definition.noRetryFor()).isEmpty();
    }

    @Test
    void everyDeclaredAttributeIsKept() {
        TaskDefinition definition = reader.read(new FullyDeclaredTask());

        assertThat(definition.id()).isEqualTo("reader.full");
        assertThat(definition.queue()).isEqualTo("reports");
        assertThat(definition.idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(Duration.ofDays(7)));
        assertThat(definition.maxAttempts()).isEqualTo(7);
        assertThat(definition.backoff()).isEqualTo(Duration.ofSeconds(10));
        assertThat(definition.noRetryFor()).containsExactly(IllegalStateException.class);
        assertThat(definition.timeout()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void activeTtlIsAcceptedInADeclaration() {
        assertThat(reader.read(new ActiveTtlTask()).idempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.active());
    }

    @Test
    void idOf255CharactersIsAccepted() {
        assertThat(reader.read(new LongestIdTask()).id()).hasSize(255);
    }

    @Test
    void genericPayloadTypeKeepsItsTypeArguments() {
        TaskDefinition definition = reader.read(new ListPayloadTask());

        assertThat(definition.payloadClass()).isEqualTo(List.class);
        assertThat(ResolvableType.forType(definition.payloadType())
                        .getGeneric(0)
                        .resolve())
                .isEqualTo(PlainTask.Payload.class);
    }

    @Test
    void proxiedHandlerIsReadFromItsTargetClass() {
        ProxyFactory factory = new ProxyFactory(new PlainTask());
        factory.setProxyTargetClass(true);
        Object proxy = factory.getProxy();
        assertThat(AopUtils.isCglibProxy(proxy)).isTrue();

        TaskDefinition definition = reader.read(proxy);

        assertThat(definition.id()).isEqualTo("reader.plain");
        assertThat(definition.handlerClass()).isEqualTo(PlainTask.class);
        assertThat(definition.payloadClass()).isEqualTo(PlainTask.Payload.class);
        assertThat(definition.handler()).isSameAs(proxy);
    }

    @Test
    @DisplayName("Finding 1: a task read from its bean class looks its handler up only when a run first needs it")
    void handlerClassIsReadWithoutCreatingTheHandler() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        PlainTask handler = new PlainTask();

        TaskDefinition definition = reader.read(PlainTask.class, () -> {
            lookups.incrementAndGet();
            return handler;
        });

        assertThat(definition.id()).isEqualTo("reader.plain");
        assertThat(definition.payloadClass()).isEqualTo(PlainTask.Payload.class);
        assertThat(lookups).as("not looked up while reading").hasValue(0);
        definition.handler().run(new PlainTask.Payload("x"), null);
        definition.handler().idempotencyKey(new PlainTask.Payload("y"));
        assertThat(lookups).as("looked up once, on first use").hasValue(1);
    }

    @Test
    void handlerClassThatIsNoTaskHandlerFailsWithoutBeingLookedUp() {
        assertThatExceptionOfType(TaskDeclarationException.class)
                .isThrownBy(() -> reader.read(NotAHandler.class, () -> {
                    throw new AssertionError("looked up");
                }))
                .withMessageContaining(NotAHandler.class.getName())
                .withMessageContaining("does not implement TaskHandler");
    }

    static Stream<Arguments> badDeclarations() {
        return Stream.of(
                Arguments.of("an empty id", new EmptyIdTask(), "id must not be empty"),
                Arguments.of("an id with ':'", new ColonIdTask(), "id must not contain ':'"),
                Arguments.of(
                        "an id with a leading space", new PaddedIdTask(), "id must not start or end with whitespace"),
                Arguments.of("an id with a tab", new TabIdTask(), "id must not contain control characters"),
                Arguments.of("an id of 256 characters", new TooLongIdTask(), "id must be at most 255 characters"),
                Arguments.of("a queue name with ':'", new ColonQueueTask(), "queue must not contain ':'"),
                Arguments.of("an empty queue name", new EmptyQueueTask(), "queue must not be empty"),
                Arguments.of("an undeclared queue (S-QC-1)", new UndeclaredQueueTask(), "runlane.queues.imports"),
                Arguments.of("an idempotencyKeyTtl with an unknown unit", new BadTtlTask(), "'1x'"),
                Arguments.of("an idempotencyKeyTtl without a unit", new UnitlessTtlTask(), "'30'"),
                Arguments.of("a zero idempotencyKeyTtl", new ZeroTtlTask(), "'0s'"),
                Arguments.of(
                        "an idempotencyKeyTtl over 1,000 years (S-ID-10)",
                        new MillennialTtlTask(),
                        "idempotencyKeyTtl must be at most 365250 days"),
                Arguments.of("a negative maxAttempts", new NegativeMaxAttemptsTask(), "maxAttempts"),
                Arguments.of("a backoff that is no duration", new BadBackoffTask(), "backoff"),
                Arguments.of("a zero backoff", new ZeroBackoffTask(), "backoff"),
                Arguments.of("a negative backoff", new NegativeBackoffTask(), "backoff"),
                Arguments.of("a timeout that is no duration (finding 8)", new BadTimeoutTask(), "timeout"),
                Arguments.of("a zero timeout (finding 8)", new ZeroTimeoutTask(), "timeout must be a positive"),
                Arguments.of("no TaskHandler", new NotAHandler(), "does not implement TaskHandler"),
                Arguments.of("a raw TaskHandler", new RawPayloadTask(), "concrete payload type"),
                Arguments.of(
                        "a type variable as payload", new TypeVariablePayloadTask<String>(), "concrete payload type"));
    }

    @ParameterizedTest(name = "a declaration with {0} fails naming the class")
    @MethodSource("badDeclarations")
    void badDeclarationFailsWithAMessageNamingTheTaskClass(String description, Object bean, String reason) {
        assertThatExceptionOfType(TaskDeclarationException.class)
                .isThrownBy(() -> reader.read(bean))
                .isInstanceOf(ConfigurationInvalidException.class)
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("configuration_invalid");
                    assertThat(ex.getMessage())
                            .contains(bean.getClass().getName())
                            .contains(reason);
                });
    }

    @Test
    void declaredQueueNameIsListedWhenAQueueIsMissing() {
        assertThatExceptionOfType(TaskDeclarationException.class)
                .isThrownBy(() -> reader.read(new UndeclaredQueueTask()))
                .withMessageContaining("'imports'")
                .withMessageContaining("reports");
    }

    /** A payload for tasks whose payload does not matter here. */
    public record Empty() {}

    @Task(id = "reader.plain")
    public static class PlainTask implements TaskHandler<PlainTask.Payload> {

        public record Payload(String value) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Task(
            id = "reader.full",
            queue = "reports",
            idempotencyKeyTtl = "7d",
            maxAttempts = 7,
            backoff = "10s",
            noRetryFor = IllegalStateException.class,
            timeout = "90s")
    public static class FullyDeclaredTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.active", idempotencyKeyTtl = "active")
    public static class ActiveTtlTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    private static final String ID_OF_255 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";

    @Task(id = ID_OF_255)
    public static class LongestIdTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = ID_OF_255 + "f")
    public static class TooLongIdTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.list")
    public static class ListPayloadTask implements TaskHandler<List<PlainTask.Payload>> {
        @Override
        public void run(List<PlainTask.Payload> payload, RunContext context) {}
    }

    @Task(id = "")
    public static class EmptyIdTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "orders:confirm")
    public static class ColonIdTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = " orders.confirm")
    public static class PaddedIdTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "orders\tconfirm")
    public static class TabIdTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.colon-queue", queue = "reports:eu")
    public static class ColonQueueTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.empty-queue", queue = "")
    public static class EmptyQueueTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.undeclared-queue", queue = "imports")
    public static class UndeclaredQueueTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.bad-ttl", idempotencyKeyTtl = "1x")
    public static class BadTtlTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.unitless-ttl", idempotencyKeyTtl = "30")
    public static class UnitlessTtlTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.zero-ttl", idempotencyKeyTtl = "0s")
    public static class ZeroTtlTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.millennial-ttl", idempotencyKeyTtl = "365251d")
    public static class MillennialTtlTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.negative-attempts", maxAttempts = -1)
    public static class NegativeMaxAttemptsTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.bad-backoff", backoff = "soon")
    public static class BadBackoffTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.bad-timeout", timeout = "forever")
    public static class BadTimeoutTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.zero-timeout", timeout = "0ms")
    public static class ZeroTimeoutTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.zero-backoff", backoff = "0s")
    public static class ZeroBackoffTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.negative-backoff", backoff = "-5s")
    public static class NegativeBackoffTask implements TaskHandler<Empty> {
        @Override
        public void run(Empty payload, RunContext context) {}
    }

    @Task(id = "reader.not-a-handler")
    public static class NotAHandler {
        public void run(Empty payload) {}
    }

    @Task(id = "reader.raw")
    @SuppressWarnings("rawtypes")
    public static class RawPayloadTask implements TaskHandler {
        @Override
        public void run(Object payload, RunContext context) {}
    }

    @Task(id = "reader.type-variable")
    public static class TypeVariablePayloadTask<T> implements TaskHandler<T> {
        @Override
        public void run(T payload, RunContext context) {}
    }
}

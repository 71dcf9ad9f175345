package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.DebounceMode;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.DebouncePolicy;
import io.runlane.internal.registry.RateLimitPolicy;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.ThrottlePolicy;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** S-DB-1, S-RT-1, S-TH-1: a task's flow control is read from {@code @Task}, and a bad one fails start-up. */
class FlowControlDeclarationTests {

    private static final RunlaneSettings SETTINGS =
            new RunlaneSettings("default", "runlane", IdempotencyKeyTtl.parse("30d"), 5, Set.of());

    private final TaskDefinitionReader reader = new TaskDefinitionReader(SETTINGS);

    abstract static class NoOp implements TaskHandler<String> {

        @Override
        public void run(String payload, RunContext context) {}
    }

    @Task(
            id = "flow.all",
            debounce = "5s",
            debounceMaxWait = "1m",
            debounceMode = DebounceMode.FIRST,
            rateLimit = 100,
            rateLimitPeriod = "1h",
            throttle = 10,
            throttlePeriod = "1s")
    static class All extends NoOp {}

    @Task(id = "flow.none")
    static class None extends NoOp {}

    @Task(id = "flow.max-wait-alone", debounceMaxWait = "1m")
    static class MaxWaitAlone extends NoOp {}

    @Task(id = "flow.max-wait-short", debounce = "1m", debounceMaxWait = "10s")
    static class MaxWaitShorterThanPeriod extends NoOp {}

    @Task(id = "flow.debounce-long", debounce = "31d")
    static class DebounceTooLong extends NoOp {}

    @Task(id = "flow.debounce-bad", debounce = "soon")
    static class DebounceUnparsable extends NoOp {}

    @Task(id = "flow.rate-negative", rateLimit = -1, rateLimitPeriod = "1m")
    static class NegativeRateLimit extends NoOp {}

    @Task(id = "flow.rate-no-period", rateLimit = 5)
    static class RateLimitWithoutPeriod extends NoOp {}

    @Task(id = "flow.rate-period-alone", rateLimitPeriod = "1m")
    static class RatePeriodWithoutLimit extends NoOp {}

    @Task(id = "flow.rate-too-many", rateLimit = 100_001, rateLimitPeriod = "1m")
    static class RateLimitTooHigh extends NoOp {}

    @Task(id = "flow.rate-period-long", rateLimit = 5, rateLimitPeriod = "32d")
    static class RatePeriodTooLong extends NoOp {}

    @Task(id = "flow.throttle-negative", throttle = -3, throttlePeriod = "1s")
    static class NegativeThrottle extends NoOp {}

    @Task(id = "flow.throttle-no-period", throttle = 3)
    static class ThrottleWithoutPeriod extends NoOp {}

    @Task(id = "flow.throttle-zero-period", throttle = 3, throttlePeriod = "0s")
    static class ThrottleZeroPeriod extends NoOp {}

    @Task(id = "flow.throttle-too-many", throttle = 10_001, throttlePeriod = "1s")
    static class ThrottleTooHigh extends NoOp {}

    @Test
    @DisplayName("S-DB-1, S-RT-1, S-TH-1: @Task declares a debounce, a rate limit and a throttle")
    void flowControlIsRead() {
        TaskDefinition definition = reader.read(new All());

        assertThat(definition.debounce())
                .isEqualTo(new DebouncePolicy(Duration.ofSeconds(5), Duration.ofMinutes(1), DebounceMode.FIRST));
        assertThat(definition.rateLimit()).isEqualTo(new RateLimitPolicy(100, Duration.ofHours(1)));
        assertThat(definition.throttle()).isEqualTo(new ThrottlePolicy(10, Duration.ofSeconds(1)));
    }

    @Test
    @DisplayName("S-DB-1, S-RT-1, S-TH-1: a task declaring none has no flow control")
    void noFlowControlByDefault() {
        TaskDefinition definition = reader.read(new None());

        assertThat(definition.debounce()).isNull();
        assertThat(definition.rateLimit()).isNull();
        assertThat(definition.throttle()).isNull();
    }

    static Stream<Arguments> badDeclarations() {
        return Stream.of(
                Arguments.of(new MaxWaitAlone(), "debounceMaxWait '1m' needs a debounce period"),
                Arguments.of(new MaxWaitShorterThanPeriod(), "debounceMaxWait must not be shorter than"),
                Arguments.of(new DebounceTooLong(), "debounce must be from PT0.001S to PT720H"),
                Arguments.of(new DebounceUnparsable(), "debounce must be a positive duration"),
                Arguments.of(new NegativeRateLimit(), "rateLimit must be from 1 to 100000, but was -1"),
                Arguments.of(new RateLimitWithoutPeriod(), "needs a rateLimitPeriod"),
                Arguments.of(new RatePeriodWithoutLimit(), "rateLimit must be from 1 to 100000, but was 0"),
                Arguments.of(new RateLimitTooHigh(), "rateLimit must be from 1 to 100000"),
                Arguments.of(new RatePeriodTooLong(), "rateLimitPeriod must be from"),
                Arguments.of(new NegativeThrottle(), "throttle must be from 1 to 10000, but was -3"),
                Arguments.of(new ThrottleWithoutPeriod(), "needs a throttlePeriod"),
                Arguments.of(new ThrottleZeroPeriod(), "throttlePeriod must be a positive duration"),
                Arguments.of(new ThrottleTooHigh(), "throttle must be from 1 to 10000"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badDeclarations")
    @DisplayName("S-DB-1, S-RT-1, S-TH-1: a bad flow-control declaration fails start-up naming the class and reason")
    void badDeclarationFailsNamingTheClass(NoOp handler, String reason) {
        assertThatExceptionOfType(TaskDeclarationException.class)
                .isThrownBy(() -> reader.read(handler))
                .withMessageContaining(handler.getClass().getName())
                .withMessageContaining(reason);
    }
}

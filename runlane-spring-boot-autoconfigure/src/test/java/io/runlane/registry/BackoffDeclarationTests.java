package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** S-EX-4: a task's own exponential backoff is read, and a bad one fails start-up naming the class. */
class BackoffDeclarationTests {

    private static final RunlaneSettings SETTINGS =
            new RunlaneSettings("default", "runlane", IdempotencyKeyTtl.parse("30d"), 5, Set.of());

    private final TaskDefinitionReader reader = new TaskDefinitionReader(SETTINGS);

    abstract static class NoOp implements TaskHandler<String> {

        @Override
        public void run(String payload, RunContext context) {}
    }

    @Task(id = "backoff.exponential", backoff = "2s", backoffMultiplier = 1.5, maxBackoff = "1m")
    static class Exponential extends NoOp {}

    @Task(id = "backoff.fixed", backoff = "10s")
    static class Fixed extends NoOp {}

    @Task(id = "backoff.configured")
    static class Configured extends NoOp {}

    @Task(id = "backoff.negative-multiplier", backoff = "1s", backoffMultiplier = -2)
    static class NegativeMultiplier extends NoOp {}

    @Task(id = "backoff.shrinking", backoff = "1s", backoffMultiplier = 0.5)
    static class ShrinkingMultiplier extends NoOp {}

    @Task(id = "backoff.infinite", backoffMultiplier = Double.POSITIVE_INFINITY)
    static class InfiniteMultiplier extends NoOp {}

    @Task(id = "backoff.nan", backoffMultiplier = Double.NaN)
    static class NanMultiplier extends NoOp {}

    @Task(id = "backoff.fixed-with-max", backoff = "10s", maxBackoff = "1m")
    static class FixedWithMax extends NoOp {}

    @Task(id = "backoff.max-below-first", backoff = "1m", backoffMultiplier = 2, maxBackoff = "10s")
    static class MaxBelowFirst extends NoOp {}

    @Task(id = "backoff.bad-max", backoffMultiplier = 2, maxBackoff = "soon")
    static class UnparsableMax extends NoOp {}

    @Task(id = "backoff.zero-max", backoffMultiplier = 2, maxBackoff = "0s")
    static class ZeroMax extends NoOp {}

    @Test
    @DisplayName("Finding 18, S-EX-4: @Task declares an exponential backoff with its own first delay and maximum")
    void exponentialBackoffIsRead() {
        TaskDefinition definition = reader.read(new Exponential());

        assertThat(definition.backoff()).isEqualTo(Duration.ofSeconds(2));
        assertThat(definition.backoffMultiplier()).isEqualTo(1.5);
        assertThat(definition.maxBackoff()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    @DisplayName("S-EX-4: a backoff without a multiplier stays fixed, and no backoff means the configured one")
    void fixedAndConfiguredBackoffsAreUnchanged() {
        TaskDefinition fixed = reader.read(new Fixed());
        TaskDefinition configured = reader.read(new Configured());

        assertThat(fixed.backoffMultiplier()).isZero();
        assertThat(fixed.maxBackoff()).isNull();
        assertThat(fixed.declaresBackoff()).isTrue();
        assertThat(configured.declaresBackoff()).isFalse();
    }

    static Stream<Arguments> badDeclarations() {
        return Stream.of(
                Arguments.of(new NegativeMultiplier(), "backoffMultiplier must be 0"),
                Arguments.of(new ShrinkingMultiplier(), "backoffMultiplier must be 0"),
                Arguments.of(new InfiniteMultiplier(), "backoffMultiplier must be 0"),
                Arguments.of(new NanMultiplier(), "backoffMultiplier must be 0"),
                Arguments.of(new FixedWithMax(), "needs an exponential backoff"),
                Arguments.of(new MaxBelowFirst(), "must not be shorter than backoff"),
                Arguments.of(new UnparsableMax(), "maxBackoff must be a positive duration"),
                Arguments.of(new ZeroMax(), "maxBackoff must be a positive duration"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badDeclarations")
    @DisplayName("Finding 18, S-EX-4: a bad backoff declaration fails start-up naming the class")
    void badBackoffDeclarationFailsNamingTheClass(NoOp handler, String reason) {
        assertThatExceptionOfType(TaskDeclarationException.class)
                .isThrownBy(() -> reader.read(handler))
                .withMessageContaining(handler.getClass().getName())
                .withMessageContaining(reason);
    }
}

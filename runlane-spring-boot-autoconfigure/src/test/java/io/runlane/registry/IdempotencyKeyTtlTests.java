package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The TTL values a task, a property or a call may give (S-IK-3, S-IK-5, S-IK-6). */
@DisplayName("S-IK-6 idempotency key TTL values")
class IdempotencyKeyTtlTests {

    static Stream<Arguments> durations() {
        return Stream.of(
                Arguments.of("30s", Duration.ofSeconds(30)),
                Arguments.of("15m", Duration.ofMinutes(15)),
                Arguments.of("24h", Duration.ofHours(24)),
                Arguments.of("7d", Duration.ofDays(7)));
    }

    @ParameterizedTest(name = "''{0}'' is parsed as {1}")
    @MethodSource("durations")
    void durationWithUnitIsParsed(String value, Duration expected) {
        IdempotencyKeyTtl ttl = IdempotencyKeyTtl.parse(value);
        assertThat(ttl.isActive()).isFalse();
        assertThat(ttl.duration()).isEqualTo(expected);
        assertThat(ttl).isEqualTo(IdempotencyKeyTtl.of(expected));
    }

    @ParameterizedTest(name = "''{0}'' means active")
    @ValueSource(strings = {"active", "ACTIVE", "Active"})
    void activeIsParsedWhateverItsCase(String value) {
        IdempotencyKeyTtl ttl = IdempotencyKeyTtl.parse(value);
        assertThat(ttl.isActive()).isTrue();
        assertThat(ttl.duration()).isNull();
        assertThat(ttl).isEqualTo(IdempotencyKeyTtl.active());
    }

    @ParameterizedTest(name = "''{0}'' is rejected")
    @ValueSource(strings = {"", "  ", "0s", "0d", "-1s", "30", "abc", "1x", "inactive"})
    void valueThatIsNeitherAPositiveDurationNorActiveIsRejected(String value) {
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> IdempotencyKeyTtl.parse(value))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("configuration_invalid");
                    assertThat(ex.getMessage()).contains("idempotencyKeyTtl").contains("'" + value + "'");
                });
    }

    @Test
    void zeroDurationIsRejected() {
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> IdempotencyKeyTtl.of(Duration.ZERO))
                .satisfies(ex -> assertThat(ex.code()).isEqualTo("configuration_invalid"));
    }

    @Test
    void negativeDurationIsRejected() {
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> IdempotencyKeyTtl.of(Duration.ofSeconds(-1)))
                .satisfies(ex -> assertThat(ex.code()).isEqualTo("configuration_invalid"));
    }

    @Test
    void positiveDurationIsKept() {
        IdempotencyKeyTtl ttl = IdempotencyKeyTtl.of(Duration.ofMillis(1));
        assertThat(ttl.isActive()).isFalse();
        assertThat(ttl.duration()).isEqualTo(Duration.ofMillis(1));
    }
}

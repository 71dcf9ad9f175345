package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.InvalidKeyException;
import io.runlane.internal.kernel.KeyRules;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The rules of S-ID-1 on their own; the integration tests prove that every entry point applies them. */
@DisplayName("S-ID-1 key rules")
class KeyRulesTests {

    static Stream<Arguments> invalidValues() {
        return Stream.of(
                Arguments.of("empty", "", "must not be empty"),
                Arguments.of("256 characters", "k".repeat(256), "at most 255 characters"),
                Arguments.of("a ':'", "tenant:42", "':'"),
                Arguments.of("only a ':'", ":", "':'"),
                Arguments.of("a NUL character", "a\u0000b", "control characters"),
                Arguments.of("a line feed", "a\nb", "control characters"),
                Arguments.of("a DEL character", "a\u007fb", "control characters"),
                Arguments.of("a next-line (C1) character", "a\u0085b", "control characters"),
                Arguments.of("a leading space", " key", "whitespace"),
                Arguments.of("a trailing space", "key ", "whitespace"),
                Arguments.of("a leading no-break space", "\u00a0key", "whitespace"),
                Arguments.of("a trailing no-break space", "key\u00a0", "whitespace"),
                Arguments.of("a trailing ideographic space", "key\u3000", "whitespace"),
                Arguments.of("only a space", " ", "whitespace"));
    }

    @ParameterizedTest(name = "a value with {0} is rejected")
    @MethodSource("invalidValues")
    void invalidValueIsRejectedWithTheFieldAndTheReason(String description, String value, String reason) {
        assertThat(KeyRules.violation(value)).contains(reason);
        assertThatExceptionOfType(InvalidKeyException.class)
                .isThrownBy(() -> KeyRules.requireValid("singletonKey", value))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("invalid_key");
                    assertThat(ex.field()).isEqualTo("singletonKey");
                    assertThat(ex.getMessage()).startsWith("singletonKey ").contains(reason);
                });
    }

    static Stream<Arguments> validValues() {
        return Stream.of(
                Arguments.of("one character", "k"),
                Arguments.of("255 characters", "k".repeat(255)),
                Arguments.of("inner spaces", "order 42 for acme"),
                Arguments.of("dots, dashes, slashes and underscores", "customers.refresh/v2-beta_1"),
                Arguments.of("non-ASCII letters", "kunde-müller-ключ-顧客"),
                Arguments.of("a UUID", "0b7e7c7e-2b7a-4f7e-9d1e-3c2c1f0a9e11"));
    }

    @ParameterizedTest(name = "a value with {0} is accepted")
    @MethodSource("validValues")
    void validValueIsAcceptedAsIs(String description, String value) {
        assertThat(KeyRules.violation(value)).isNull();
        assertThat(KeyRules.requireValid("idempotencyKey", value)).isSameAs(value);
    }

    @Test
    void nullIsNoKeyWhereAKeyIsOptionalButRejectedWhereItIsRequired() {
        assertThat(KeyRules.requireValidOrNull("concurrencyKey", null)).isNull();
        assertThatExceptionOfType(InvalidKeyException.class)
                .isThrownBy(() -> KeyRules.requireValid("taskId", null))
                .satisfies(ex -> assertThat(ex.field()).isEqualTo("taskId"));
    }

    @Test
    void optionalKeyIsStillCheckedWhenGiven() {
        assertThatExceptionOfType(InvalidKeyException.class)
                .isThrownBy(() -> KeyRules.requireValidOrNull("concurrencyKey", "a:b"))
                .satisfies(ex -> assertThat(ex.field()).isEqualTo("concurrencyKey"));
    }
}

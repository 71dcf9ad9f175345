package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-35: the bounds of a stored stack trace, without a database. */
class BoundedStackTraceTests {

    @Test
    @DisplayName("S-EX-35: suppressed exceptions are kept, each with at most 32 frames")
    void suppressedExceptionsAreKeptWithCappedFrames() {
        IllegalStateException failure = new IllegalStateException("outer");
        RuntimeException suppressed = new RuntimeException("while closing");
        suppressed.setStackTrace(frames(100));
        failure.addSuppressed(suppressed);

        String stack = BoundedStackTrace.of(failure);

        assertThat(stack)
                .startsWith("java.lang.IllegalStateException: outer\n")
                .contains("\tSuppressed: java.lang.RuntimeException: while closing\n")
                .contains("\t\tat Frame.f31(Frame.java:31)\n\t\t... 68 frames omitted")
                .doesNotContain("Frame.f32(");
    }

    @Test
    @DisplayName("S-EX-35: a cut never splits a surrogate pair and ends with the marker")
    void cutKeepsSurrogatePairsWhole() {
        String text = "a" + "\uD83D\uDE00".repeat(BoundedStackTrace.MAX_LENGTH);

        String capped = BoundedStackTrace.cap(text);

        assertThat(capped)
                .hasSizeLessThanOrEqualTo(BoundedStackTrace.MAX_LENGTH)
                .endsWith(BoundedStackTrace.TRUNCATED);
        String kept = capped.substring(0, capped.length() - BoundedStackTrace.TRUNCATED.length());
        assertThat(Character.isHighSurrogate(kept.charAt(kept.length() - 1))).isFalse();
        assertThat(kept.codePoints().filter(cp -> cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE))
                .isEmpty();
        assertThat(BoundedStackTrace.cap("short")).isEqualTo("short");
    }

    @Test
    @DisplayName("S-EX-35: an exception whose message cannot be read is stored without a stack trace")
    void unprintableExceptionHasNoStackTrace() {
        RuntimeException broken = new RuntimeException() {
            @Override
            public String getMessage() {
                throw new IllegalStateException("no message");
            }
        };

        assertThat(BoundedStackTrace.of(broken)).isNull();
    }

    private static StackTraceElement[] frames(int count) {
        StackTraceElement[] frames = new StackTraceElement[count];
        for (int i = 0; i < count; i++) {
            frames[i] = new StackTraceElement("Frame", "f" + i, "Frame.java", i);
        }
        return frames;
    }
}

package io.runlane.internal.worker;

import io.runlane.internal.kernel.TextSanitizer;
import java.io.PrintWriter;
import java.io.Writer;
import org.jspecify.annotations.Nullable;

/**
 * The stack trace stored with a failure (S-EX-35): what {@link Throwable#printStackTrace(PrintWriter)} prints (the
 * exception, its frames, its {@code Caused by} and {@code Suppressed} chain), with at most {@value #MAX_FRAMES}
 * frames per exception and at most {@value #MAX_LENGTH} characters in all.
 *
 * <p>Frames beyond the first {@value #MAX_FRAMES} of an exception are replaced by one {@code ... n frames omitted}
 * line, so a deep recursion keeps its causes, which say most about what went wrong; what still exceeds the length
 * is cut at a code point boundary and ends with {@value #TRUNCATED}. The text is bounded while it is printed, so a
 * pathological exception never costs more memory than a few times the cap. U+0000 is replaced (S-EX-25).
 */
final class BoundedStackTrace {

    /** The most characters stored, the truncation marker included. */
    static final int MAX_LENGTH = 8192;

    /** The most frames stored of each exception in the chain. */
    static final int MAX_FRAMES = 32;

    /** Ends a stack trace cut at {@link #MAX_LENGTH}. */
    static final String TRUNCATED = "\n\t... truncated by Runlane";

    private BoundedStackTrace() {}

    /** The bounded stack trace of {@code failure}, or {@code null} when printing it failed. */
    static @Nullable String of(Throwable failure) {
        FrameCappingWriter out = new FrameCappingWriter();
        try (PrintWriter printer = new PrintWriter(out)) {
            failure.printStackTrace(printer);
        } catch (RuntimeException | StackOverflowError ex) {
            // A toString() or getMessage() that throws: the failure is still recorded, without its stack trace.
            return null;
        }
        return cap(TextSanitizer.storable(out.text()));
    }

    /** At most {@link #MAX_LENGTH} characters, never splitting a surrogate pair. */
    static String cap(String text) {
        if (text.length() <= MAX_LENGTH) {
            return text;
        }
        int end = MAX_LENGTH - TRUNCATED.length();
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + TRUNCATED;
    }

    /**
     * Keeps the first {@link #MAX_FRAMES} frame lines of each exception, counts the others, and stops keeping text
     * past twice the length cap (the cap then cuts it anyway).
     */
    private static final class FrameCappingWriter extends Writer {

        private final StringBuilder text = new StringBuilder();

        private final StringBuilder line = new StringBuilder();

        private int frames;

        private int omitted;

        private String omittedIndent = "\t";

        @Override
        public void write(char[] buffer, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                char c = buffer[i];
                if (c == '\n') {
                    endLine();
                } else if (c != '\r' && line.length() <= MAX_LENGTH) {
                    line.append(c);
                }
            }
        }

        private void endLine() {
            String current = line.toString();
            line.setLength(0);
            String stripped = current.stripLeading();
            if (stripped.startsWith("at ")) {
                frames++;
                if (frames > MAX_FRAMES) {
                    omitted++;
                    omittedIndent = current.substring(0, current.length() - stripped.length());
                    return;
                }
            } else {
                flushOmitted();
                if (!stripped.startsWith("...")) {
                    frames = 0;
                }
            }
            keep(current);
        }

        private void flushOmitted() {
            if (omitted > 0) {
                keep(omittedIndent + "... " + omitted + (omitted == 1 ? " frame" : " frames") + " omitted");
                omitted = 0;
            }
        }

        private void keep(String kept) {
            if (text.length() <= 2 * MAX_LENGTH) {
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(kept);
            }
        }

        String text() {
            return text.toString();
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            if (!line.isEmpty()) {
                endLine();
            }
            flushOmitted();
        }
    }
}

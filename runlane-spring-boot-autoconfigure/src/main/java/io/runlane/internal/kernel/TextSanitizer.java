package io.runlane.internal.kernel;

import org.jspecify.annotations.Nullable;

/**
 * Makes free text storable in a PostgreSQL {@code text} column (S-EX-25). PostgreSQL cannot store U+0000 in text,
 * and the driver refuses a parameter holding it, so an outcome whose failure message or reason holds one would never
 * be written and its run would wait for lease expiry instead. Each U+0000 is replaced by U+FFFD (the replacement
 * character), which keeps the text's length and shows where the character was.
 */
public final class TextSanitizer {

    static final char NUL = '\0';

    static final char REPLACEMENT = '\uFFFD';

    private TextSanitizer() {}

    /** The text with every U+0000 replaced by U+FFFD; {@code null} stays {@code null}. */
    public static @Nullable String storable(@Nullable String text) {
        return text == null || text.indexOf(NUL) < 0 ? text : text.replace(NUL, REPLACEMENT);
    }
}

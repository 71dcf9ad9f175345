package io.runlane.internal.kernel;

import io.runlane.InvalidKeyException;
import org.jspecify.annotations.Nullable;

/**
 * The rules of S-ID-1 for task ids, queue names and keys: 1 to 255 characters, no {@code :} (reserved for
 * composing keys), no ISO control characters, no leading or trailing whitespace.
 */
public final class KeyRules {

    public static final int MAX_LENGTH = 255;

    private KeyRules() {}

    /** Returns the value when it is valid; otherwise throws {@link InvalidKeyException} naming the field. */
    public static String requireValid(String field, @Nullable String value) {
        String reason = violation(value);
        if (reason != null) {
            throw new InvalidKeyException(field, reason);
        }
        return value;
    }

    /** Like {@link #requireValid} but lets {@code null} (no key) through. */
    public static @Nullable String requireValidOrNull(String field, @Nullable String value) {
        return value == null ? null : requireValid(field, value);
    }

    /** Why the value breaks S-ID-1, or {@code null} when it is valid. */
    public static @Nullable String violation(@Nullable String value) {
        if (value == null) {
            return "must not be null";
        }
        if (value.isEmpty()) {
            return "must not be empty";
        }
        int length = value.codePointCount(0, value.length());
        if (length > MAX_LENGTH) {
            return "must be at most " + MAX_LENGTH + " characters, but has " + length;
        }
        if (value.indexOf(':') >= 0) {
            return "must not contain ':' (reserved), but has one at index " + value.indexOf(':');
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return "must not contain control characters, but has one at index " + i;
            }
        }
        if (isSpace(value.charAt(0)) || isSpace(value.charAt(value.length() - 1))) {
            return "must not start or end with whitespace";
        }
        return null;
    }

    private static boolean isSpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c);
    }
}

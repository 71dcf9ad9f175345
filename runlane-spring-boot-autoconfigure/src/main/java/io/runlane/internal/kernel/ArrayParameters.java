package io.runlane.internal.kernel;

import java.sql.SQLException;
import java.util.Collection;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.postgresql.util.PGobject;

/**
 * Array parameters of the engine's busiest statements, as PostgreSQL array values typed {@code uuid[]}, {@code
 * int8[]} or {@code text[]}: the text the driver makes of an array from {@code Connection.createArrayOf} (each
 * element quoted, {@code "} and {@code \} escaped with a backslash, {@code NULL} unquoted), sent with the array's
 * type, as that array is sent. {@code createArrayOf} starts the text of every array with a buffer of 1,024
 * characters, whatever its length, which a claim or a batch of completions paid once per array; this text is made at
 * its length.
 */
public final class ArrayParameters {

    private ArrayParameters() {}

    /** A {@code uuid[]} of {@code ids}. */
    public static PGobject uuids(Collection<UUID> ids) {
        StringBuilder text = new StringBuilder(2 + ids.size() * 39);
        text.append('{');
        for (UUID id : ids) {
            separate(text).append('"').append(id).append('"');
        }
        return typed("uuid[]", text.append('}'));
    }

    /** An {@code int8[]} of {@code values}. */
    public static PGobject longs(long[] values) {
        StringBuilder text = new StringBuilder(2 + values.length * 8);
        text.append('{');
        for (long value : values) {
            separate(text).append('"').append(value).append('"');
        }
        return typed("int8[]", text.append('}'));
    }

    /** A {@code text[]} of {@code values}, {@code null} elements included. */
    public static PGobject texts(Collection<? extends @Nullable String> values) {
        int length = 2;
        for (String value : values) {
            length += value == null ? 5 : value.length() + 3;
        }
        StringBuilder text = new StringBuilder(length);
        text.append('{');
        for (String value : values) {
            separate(text);
            if (value == null) {
                text.append("NULL");
            } else {
                quoted(text, value);
            }
        }
        return typed("text[]", text.append('}'));
    }

    private static StringBuilder separate(StringBuilder text) {
        return text.length() > 1 ? text.append(',') : text;
    }

    private static void quoted(StringBuilder text, String value) {
        text.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                text.append('\\');
            }
            text.append(c);
        }
        text.append('"');
    }

    private static PGobject typed(String type, CharSequence value) {
        PGobject array = new PGobject();
        array.setType(type);
        try {
            array.setValue(value.toString());
        } catch (SQLException ex) {
            throw new IllegalStateException("A plain PGobject refused its value", ex);
        }
        return array;
    }
}

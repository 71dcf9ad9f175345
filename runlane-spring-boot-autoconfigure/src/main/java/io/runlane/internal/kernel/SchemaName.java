package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import java.util.regex.Pattern;

/**
 * Checks the configured schema name. It is formatted into SQL text, so only plain lower-case identifiers are
 * accepted: that rules out injection and quoting surprises.
 */
public final class SchemaName {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private SchemaName() {}

    public static String requireValid(String schema) {
        if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
            throw new ConfigurationInvalidException(
                    "runlane.schema.name",
                    "must be a lower-case PostgreSQL identifier (letters, digits, '_', at most 63), but was '" + schema
                            + "'");
        }
        return schema;
    }
}

package io.runlane.internal.schema;

import io.runlane.RunlaneException;

/** Runlane could not apply its changelog to its schema; the cause says why (no connection, no privilege, ...). */
public final class SchemaInitializationException extends RunlaneException {

    private final String schema;

    public SchemaInitializationException(String schema, String message, Throwable cause) {
        super("schema_initialization_failed", message, cause);
        this.schema = schema;
    }

    public String schema() {
        return schema;
    }
}

package io.runlane.internal.schema;

import io.runlane.RunlaneException;
import java.util.List;

/** With {@code runlane.schema.initialize=false}, changesets of the jar's changelog are not applied to the schema. */
public final class SchemaNotAppliedException extends RunlaneException {

    private final String schema;

    private final List<String> missingFiles;

    public SchemaNotAppliedException(String schema, List<String> missingFiles) {
        super(
                "schema_not_applied",
                "Runlane's schema '" + schema + "' lacks the changesets of " + String.join(", ", missingFiles));
        this.schema = schema;
        this.missingFiles = List.copyOf(missingFiles);
    }

    public String schema() {
        return schema;
    }

    /** The changelog files, in order, whose changesets no Liquibase or Flyway history records as applied. */
    public List<String> missingFiles() {
        return missingFiles;
    }
}

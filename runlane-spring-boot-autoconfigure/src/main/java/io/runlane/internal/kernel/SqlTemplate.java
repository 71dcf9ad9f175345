package io.runlane.internal.kernel;

/**
 * Formats SQL text once with the configured schema, so that queries are written with a {@code {schema}}
 * placeholder and stay readable in source. The schema name is validated as a plain identifier first.
 */
public final class SqlTemplate {

    private final String schema;

    public SqlTemplate(String schema) {
        this.schema = SchemaName.requireValid(schema);
    }

    public String format(String sql) {
        return sql.replace("{schema}", schema);
    }

    public String schema() {
        return schema;
    }
}

package io.runlane.internal.schema;

import io.runlane.internal.kernel.SchemaName;
import io.runlane.internal.schema.RunlaneChangelog.ChangelogFile;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Checks, when the application manages Runlane's schema itself, that every file of the jar's changelog is applied,
 * so that a forgotten file fails start-up with its name instead of failing triggers at run time.
 *
 * <ol>
 *   <li>The Liquibase and Flyway history tables are looked up in {@code pg_class}: Runlane's own
 *       {@value RunlaneSchemaInitializer#CHANGELOG_TABLE} in its schema, and the application's in Runlane's schema, in
 *       the schemas of the connection's search path and in the schemas the application configures for Liquibase or
 *       Flyway. Other schemas are ignored: another deployment's history in the same database proves nothing.
 *   <li>A file counts as applied when a Liquibase history holds each of its changesets ({@code author:id} under a file
 *       of that name), or when a successful Flyway migration has the checksum of an unchanged copy of the file or
 *       names its words (a copy named {@code V104__runlane_implicit_creation_event.sql}).
 *   <li>The files that are not applied are reported in changelog order.
 * </ol>
 */
public final class RunlaneSchemaVerifier {

    private static final String HISTORY_TABLES = """
            SELECT n.nspname, c.relname
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p') AND lower(c.relname) IN (?, ?, ?)
              AND (n.nspname = ANY (current_schemas(false)) OR n.nspname = ANY (?))
            """;

    private final DataSource dataSource;

    private final String schema;

    private final String liquibaseTable;

    private final String flywayTable;

    private final List<String> historySchemas;

    private final RunlaneChangelog changelog;

    /**
     * @param liquibaseTable the application's Liquibase history table ({@code databasechangelog} by default)
     * @param flywayTable the application's Flyway history table ({@code flyway_schema_history} by default)
     * @param historySchemas schemas the application keeps those tables in, besides its search path
     */
    public RunlaneSchemaVerifier(
            DataSource dataSource,
            String schema,
            String liquibaseTable,
            String flywayTable,
            Collection<String> historySchemas) {
        this.dataSource = dataSource;
        this.schema = SchemaName.requireValid(schema);
        this.liquibaseTable = liquibaseTable.toLowerCase(Locale.ROOT);
        this.flywayTable = flywayTable.toLowerCase(Locale.ROOT);
        List<String> schemas = new ArrayList<>(historySchemas);
        schemas.add(this.schema);
        this.historySchemas = List.copyOf(schemas);
        this.changelog = RunlaneChangelog.load();
    }

    /** Throws {@link SchemaNotAppliedException} naming the files whose changesets are not applied. */
    public void verify() {
        List<String> missing;
        try (Connection connection = dataSource.getConnection()) {
            PostgresRequirement.check(connection);
            missing = missingFiles(connection);
        } catch (SQLException ex) {
            throw new SchemaInitializationException(
                    schema, "Could not check Runlane's schema '" + schema + "': " + ex.getMessage(), ex);
        }
        if (!missing.isEmpty()) {
            throw new SchemaNotAppliedException(schema, missing);
        }
    }

    private List<String> missingFiles(Connection connection) throws SQLException {
        Set<String> liquibase = new HashSet<>();
        List<FlywayRow> flyway = new ArrayList<>();
        for (String[] table : historyTables(connection)) {
            String name = table[1].toLowerCase(Locale.ROOT);
            String qualified = quote(table[0]) + "." + quote(table[1]);
            if (name.equals(flywayTable)) {
                readFlyway(connection, qualified, flyway);
            } else if (!name.equals(RunlaneSchemaInitializer.CHANGELOG_TABLE) || table[0].equals(schema)) {
                readLiquibase(connection, qualified, liquibase);
            }
        }
        List<String> missing = new ArrayList<>();
        for (ChangelogFile file : changelog.files()) {
            boolean byLiquibase =
                    file.changesets().stream().allMatch(changeset -> liquibase.contains(file.name() + "|" + changeset));
            boolean byFlyway = flyway.stream().anyMatch(row -> row.matches(file));
            if (!byLiquibase && !byFlyway) {
                missing.add(file.name());
            }
        }
        return missing;
    }

    private List<String[]> historyTables(Connection connection) throws SQLException {
        List<String[]> tables = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(HISTORY_TABLES)) {
            statement.setString(1, liquibaseTable);
            statement.setString(2, flywayTable);
            statement.setString(3, RunlaneSchemaInitializer.CHANGELOG_TABLE);
            statement.setArray(4, connection.createArrayOf("text", historySchemas.toArray()));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    tables.add(new String[] {rows.getString(1), rows.getString(2)});
                }
            }
        }
        return tables;
    }

    private static void readLiquibase(Connection connection, String table, Set<String> applied) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT author, id, filename FROM " + table)) {
            while (rows.next()) {
                String filename = rows.getString(3);
                String file = filename.substring(filename.lastIndexOf('/') + 1);
                applied.add(file + "|" + rows.getString(1) + ":" + rows.getString(2));
            }
        }
    }

    private static void readFlyway(Connection connection, String table, List<FlywayRow> applied) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT script, checksum FROM " + table + " WHERE success")) {
            while (rows.next()) {
                int checksum = rows.getInt(2);
                applied.add(new FlywayRow(rows.getString(1), rows.wasNull() ? null : checksum));
            }
        }
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private record FlywayRow(String script, @Nullable Integer checksum) {

        boolean matches(ChangelogFile file) {
            if (checksum != null && checksum == file.flywayChecksum()) {
                return true;
            }
            String normalised = script.toLowerCase(Locale.ROOT).replace('-', '_');
            return normalised.contains(file.stem());
        }
    }
}

package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.schema.RunlaneChangelog;
import io.runlane.internal.schema.RunlaneChangelog.ChangelogFile;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.schema.RunlaneSchemaVerifier;
import io.runlane.internal.schema.SchemaNotAppliedException;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import liquibase.Scope;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * With {@code runlane.schema.initialize=false} the application applies Runlane's changelog with its own Liquibase or
 * Flyway; start-up then checks that every file of the jar's changelog is applied (issue 15, item 3). Real Liquibase
 * and Flyway runs against PostgreSQL.
 */
@RunlaneDatabaseTest
class SchemaVerifierIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("verify_runlane")
    private String runlaneSchema;

    @FreshSchema("verify_app")
    private String appSchema;

    @TempDir
    Path migrations;

    @Test
    @DisplayName("Issue 15.3: a schema Runlane applied itself passes the check")
    void schemaAppliedByRunlanePasses() {
        new RunlaneSchemaInitializer(admin, runlaneSchema).initialize();

        assertThatNoException().isThrownBy(() -> verifier().verify());
    }

    @Test
    @DisplayName("Issue 15.3: Runlane's changelog included from the application's Liquibase changelog passes the check")
    void changelogIncludedFromTheApplicationsLiquibasePasses() throws Exception {
        applyWithApplicationLiquibase();

        assertThat(tableExists(appSchema, "databasechangelog")).isTrue();
        assertThatNoException().isThrownBy(() -> verifier().verify());
    }

    @Test
    @DisplayName("Issue 15.3: docs/schema.md's Flyway copies pass the check, whatever their version numbers")
    void flywayCopiesPassTheCheck() throws IOException {
        copyForFlyway(file -> "runlane_" + file.stem() + ".sql", List.of());
        migrateWithFlyway();

        assertThatNoException().isThrownBy(() -> verifier().verify());
    }

    @Test
    @DisplayName("Issue 15.3: unchanged Flyway copies under any name are recognised by their checksum")
    void flywayCopiesUnderOtherNamesAreRecognisedByChecksum() throws IOException {
        copyForFlyway(file -> "step_" + file.name().substring(0, 3) + ".sql", List.of());
        migrateWithFlyway();

        assertThatNoException().isThrownBy(() -> verifier().verify());
    }

    @Test
    @DisplayName("Issue 15.3: Flyway migrations lacking 004-implicit-creation-event.sql fail the check naming it")
    void flywayMigrationsLackingAFileFailNamingIt() throws IOException {
        copyForFlyway(file -> "runlane_" + file.stem() + ".sql", List.of("004-implicit-creation-event.sql"));
        migrateWithFlyway();

        SchemaNotAppliedException failure = catchThrowableOfType(
                SchemaNotAppliedException.class, () -> verifier().verify());

        assertThat(failure.missingFiles()).containsExactly("004-implicit-creation-event.sql");
        assertThat(failure.getMessage()).contains(runlaneSchema).contains("004-implicit-creation-event.sql");
    }

    @Test
    @DisplayName("Issue 15.3: a Liquibase history lacking one changeset of a file reports that file")
    void liquibaseHistoryLackingAChangesetReportsItsFile() {
        new RunlaneSchemaInitializer(admin, runlaneSchema).initialize();
        new JdbcTemplate(admin)
                .update(
                        "DELETE FROM " + runlaneSchema + "." + RunlaneSchemaInitializer.CHANGELOG_TABLE
                                + " WHERE id = ?",
                        "001-run-events");

        SchemaNotAppliedException failure = catchThrowableOfType(
                SchemaNotAppliedException.class, () -> verifier().verify());

        assertThat(failure.missingFiles()).containsExactly("001-foundation.sql");
    }

    @Test
    @DisplayName("Issue 15.3: another schema's complete history does not vouch for Runlane's schema")
    void historyOfAnotherSchemaIsIgnored(@FreshSchema("verify_other") String otherRunlaneSchema) throws Exception {
        applyWithApplicationLiquibase();

        SchemaNotAppliedException failure = catchThrowableOfType(
                SchemaNotAppliedException.class,
                () -> new RunlaneSchemaVerifier(
                                admin, otherRunlaneSchema, "databasechangelog", "flyway_schema_history", List.of())
                        .verify());

        assertThat(failure.missingFiles())
                .containsExactlyElementsOf(RunlaneChangelog.load().files().stream()
                        .map(ChangelogFile::name)
                        .toList());
    }

    private RunlaneSchemaVerifier verifier() {
        return new RunlaneSchemaVerifier(
                admin, runlaneSchema, "databasechangelog", "flyway_schema_history", List.of(appSchema));
    }

    private void applyWithApplicationLiquibase() throws Exception {
        new JdbcTemplate(admin).execute("CREATE SCHEMA " + runlaneSchema);
        new JdbcTemplate(admin).execute("CREATE SCHEMA " + appSchema);
        // Liquibase changes the session's search path: use a connection of its own, as Boot's Liquibase would.
        try (Connection connection = DriverManager.getConnection(TestDatabase.jdbcUrl())) {
            Database database =
                    DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
            database.setDefaultSchemaName(appSchema);
            database.setLiquibaseSchemaName(appSchema);
            ChangeLogParameters parameters = new ChangeLogParameters(database);
            parameters.set(RunlaneSchemaInitializer.SCHEMA_PARAMETER, runlaneSchema);
            Scope.child(
                    Map.of(
                            Scope.Attr.resourceAccessor.name(),
                            new ClassLoaderResourceAccessor(getClass().getClassLoader())),
                    () -> new CommandScope(UpdateCommandStep.COMMAND_NAME)
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, "db/app/changelog.xml")
                            .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, parameters)
                            .execute());
        }
    }

    /** Copies the jar's changelog files as Flyway migrations V1, V2, ... in order, leaving out the given files. */
    private void copyForFlyway(Function<ChangelogFile, String> name, List<String> leftOut) throws IOException {
        int version = 1;
        for (ChangelogFile file : RunlaneChangelog.load().files()) {
            if (leftOut.contains(file.name())) {
                continue;
            }
            try (InputStream in =
                    getClass().getClassLoader().getResourceAsStream("db/runlane/changes/" + file.name())) {
                Files.copy(in, migrations.resolve("V" + version++ + "__" + name.apply(file)));
            }
        }
    }

    private void migrateWithFlyway() {
        Flyway.configure()
                .dataSource(admin)
                .schemas(appSchema, runlaneSchema)
                .defaultSchema(appSchema)
                .locations("filesystem:" + migrations)
                .placeholders(Map.of(RunlaneSchemaInitializer.SCHEMA_PARAMETER, runlaneSchema))
                .load()
                .migrate();
    }

    private boolean tableExists(String schema, String table) {
        Integer count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                        Integer.class,
                        schema,
                        table);
        return count != null && count > 0;
    }
}

package io.runlane.internal.schema;

import io.runlane.RunlaneException;
import io.runlane.internal.SchemaName;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.UpdateSummaryEnum;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies Runlane's Liquibase changelog to its own schema, with its own changelog tables
 * ({@value #CHANGELOG_TABLE}, {@value #CHANGELOG_LOCK_TABLE}) so that it never interferes with the application's
 * Liquibase or Flyway history. Several instances starting at once are serialised by Liquibase's lock table; the
 * schema itself is created first under a transaction-scoped advisory lock.
 */
public final class RunlaneSchemaInitializer implements InitializingBean {

    public static final String CHANGELOG = "db/runlane/changelog-master.xml";

    public static final String CHANGELOG_TABLE = "runlane_changelog";

    public static final String CHANGELOG_LOCK_TABLE = "runlane_changelog_lock";

    /** The changelog parameter that names the schema in the SQL changesets. */
    public static final String SCHEMA_PARAMETER = "runlane_schema";

    private static final long SCHEMA_LOCK_KEY = 0x52554e4c414e45L;

    private final DataSource dataSource;

    private final String schema;

    public RunlaneSchemaInitializer(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = SchemaName.requireValid(schema);
    }

    @Override
    public void afterPropertiesSet() {
        initialize();
    }

    /** Creates the schema if needed and applies every pending changeset. */
    public void initialize() {
        try (Connection connection = dataSource.getConnection()) {
            createSchema(connection);
            Database database =
                    DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
            database.setDatabaseChangeLogTableName(CHANGELOG_TABLE);
            database.setDatabaseChangeLogLockTableName(CHANGELOG_LOCK_TABLE);
            database.setLiquibaseSchemaName(schema);
            database.setDefaultSchemaName(schema);
            ChangeLogParameters parameters = new ChangeLogParameters(database);
            parameters.set(SCHEMA_PARAMETER, schema);
            Map<String, Object> scope = Map.of(
                    Scope.Attr.resourceAccessor.name(),
                    new ClassLoaderResourceAccessor(getClass().getClassLoader()),
                    Scope.Attr.ui.name(),
                    new LoggerUIService(),
                    "liquibase.analytics.enabled",
                    false,
                    "liquibase.showBanner",
                    false);
            Scope.child(
                    scope,
                    () -> new CommandScope(UpdateCommandStep.COMMAND_NAME)
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                            .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, parameters)
                            .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY, UpdateSummaryEnum.OFF)
                            .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                            .execute());
        } catch (Exception ex) {
            throw new RunlaneException(
                    "schema_initialization_failed", "Could not apply Runlane's schema to '" + schema + "': " + ex, ex);
        }
    }

    private void createSchema(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(" + SCHEMA_LOCK_KEY + ")");
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
            connection.commit();
        } catch (SQLException ex) {
            connection.rollback();
            throw ex;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    public String schema() {
        return schema;
    }
}

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
 * Liquibase or Flyway history.
 *
 * <p>Several instances starting at once on a fresh schema are serialised by one session-level advisory lock per
 * schema, held on the connection Liquibase uses from before {@code CREATE SCHEMA} until the update is done.
 * Liquibase's own lock table is not enough: Liquibase creates its changelog table before it takes that lock, so two
 * instances could both try to create it and one would fail start-up.
 */
public final class RunlaneSchemaInitializer implements InitializingBean {

    public static final String CHANGELOG = "db/runlane/changelog-master.xml";

    public static final String CHANGELOG_TABLE = "runlane_changelog";

    public static final String CHANGELOG_LOCK_TABLE = "runlane_changelog_lock";

    /** The changelog parameter that names the schema in the SQL changesets. */
    public static final String SCHEMA_PARAMETER = "runlane_schema";

    /** The high half of the advisory lock key; the low half is the schema name's hash. */
    private static final long SCHEMA_LOCK_NAMESPACE = 0x52554e4cL << 32;

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
            lockSchema(connection);
            try {
                update(connection);
            } finally {
                unlockSchema(connection);
            }
        } catch (Exception ex) {
            throw new RunlaneException(
                    "schema_initialization_failed", "Could not apply Runlane's schema to '" + schema + "': " + ex, ex);
        }
    }

    private void update(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
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
    }

    /**
     * Waits for the schema's session-level advisory lock; it outlives the update's own commits. Auto-commit, so that
     * {@code CREATE SCHEMA} commits at once even from a pool configured without it.
     */
    private void lockSchema(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(" + lockKey() + ")");
        }
    }

    /**
     * Releases the lock before the connection goes back to the pool. A transaction the update left open is rolled
     * back first (an aborted one would refuse the unlock). If the unlock still fails (the connection broke, say), the
     * connection is aborted instead, which ends its session and so its lock; the update's own outcome stands.
     */
    private void unlockSchema(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_advisory_unlock(" + lockKey() + ")");
            }
        } catch (SQLException ex) {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException abortFailure) {
                ex.addSuppressed(abortFailure);
                throw new RunlaneException(
                        "schema_initialization_failed",
                        "Could not release the schema lock of '" + schema + "': " + ex,
                        ex);
            }
        }
    }

    private long lockKey() {
        return SCHEMA_LOCK_NAMESPACE | (schema.hashCode() & 0xffffffffL);
    }

    public String schema() {
        return schema;
    }
}

package io.runlane.internal.schema;

import io.runlane.internal.kernel.SchemaName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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

    private static final Log logger = LogFactory.getLog(RunlaneSchemaInitializer.class);

    public static final String CHANGELOG = "db/runlane/changelog-master.xml";

    public static final String CHANGELOG_TABLE = "runlane_changelog";

    public static final String CHANGELOG_LOCK_TABLE = "runlane_changelog_lock";

    /** The changelog parameter that names the schema in the SQL changesets. */
    public static final String SCHEMA_PARAMETER = "runlane_schema";

    /**
     * Liquibase's lock table as Liquibase itself creates it, made before Liquibase runs: Liquibase probes the table
     * with a query before it creates it, and on an empty database that query fails, which PostgreSQL logs as {@code
     * ERROR: relation "runlane.runlane_changelog_lock" does not exist} on every first start (issue 31).
     */
    private static final String CREATE_LOCK_TABLE = """
            CREATE TABLE IF NOT EXISTS %s.%s (
                id          INTEGER      NOT NULL PRIMARY KEY,
                locked      BOOLEAN      NOT NULL,
                lockgranted TIMESTAMP WITHOUT TIME ZONE,
                lockedby    VARCHAR(255)
            )
            """;

    /** The one row Liquibase's lock service expects, unlocked, as Liquibase would insert it. */
    private static final String INITIALIZE_LOCK_TABLE = """
            INSERT INTO %s.%s (id, locked) VALUES (1, FALSE)
            ON CONFLICT (id) DO NOTHING
            """;

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
            PostgresRequirement.check(connection);
            String searchPath = searchPath(connection);
            lockSchema(connection);
            try {
                update(connection);
            } finally {
                unlockSchema(connection, searchPath);
            }
        } catch (UnsupportedDatabaseException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new SchemaInitializationException(
                    schema, "Could not apply Runlane's schema to '" + schema + "': " + ex, ex);
        }
    }

    private void update(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
            statement.execute(CREATE_LOCK_TABLE.formatted(schema, CHANGELOG_LOCK_TABLE));
            statement.execute(INITIALIZE_LOCK_TABLE.formatted(schema, CHANGELOG_LOCK_TABLE));
        }
        long appliedBefore = appliedChangesets(connection);
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
                Scope.Attr.logService.name(),
                new QuietLiquibaseLogService(),
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
        long applied = appliedChangesets(connection) - appliedBefore;
        if (applied > 0) {
            logger.info("Runlane applied " + applied + " changeset(s) to its schema '" + schema + "'");
        } else {
            logger.debug("Runlane's schema '" + schema + "' is up to date");
        }
    }

    /** The changesets recorded in Runlane's changelog table; none before the table exists. */
    private long appliedChangesets(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet exists = statement.executeQuery(
                        "SELECT to_regclass('" + schema + "." + CHANGELOG_TABLE + "') IS NOT NULL")) {
            exists.next();
            if (!exists.getBoolean(1)) {
                return 0;
            }
        }
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*) FROM " + schema + "." + CHANGELOG_TABLE)) {
            result.next();
            return result.getLong(1);
        }
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

    private static String searchPath(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT current_setting('search_path')")) {
            result.next();
            return result.getString(1);
        }
    }

    /**
     * Releases the lock before the connection goes back to the pool. A transaction the update left open is rolled
     * back first (an aborted one would refuse the unlock). Liquibase put Runlane's schema first on the session's
     * search path; the path the application had is restored, or the pool would hand out a connection on which the
     * application's unqualified names find Runlane's tables first. If this fails (the connection broke, say), the
     * connection is aborted instead, which ends its session and so its lock; the update's own outcome stands.
     */
    private void unlockSchema(Connection connection, String searchPath) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
            try (PreparedStatement statement =
                    connection.prepareStatement("SELECT set_config('search_path', ?, false)")) {
                statement.setString(1, searchPath);
                statement.execute();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_advisory_unlock(" + lockKey() + ")");
            }
        } catch (SQLException ex) {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException abortFailure) {
                ex.addSuppressed(abortFailure);
                throw new SchemaInitializationException(
                        schema, "Could not release the schema lock of '" + schema + "': " + ex, ex);
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

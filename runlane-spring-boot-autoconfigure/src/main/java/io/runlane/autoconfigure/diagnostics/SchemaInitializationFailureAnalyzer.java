package io.runlane.autoconfigure.diagnostics;

import io.runlane.autoconfigure.diagnostics.DatabaseConnectionFailures.Cause;
import io.runlane.internal.schema.SchemaInitializationException;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports that Runlane could not reach its database at start-up, or could not apply or check its schema: what
 * PostgreSQL said, the host, port, database and user that were tried (never the password), and the fix for that
 * cause.
 */
class SchemaInitializationFailureAnalyzer extends AbstractFailureAnalyzer<SchemaInitializationException> {

    private final Environment environment;

    SchemaInitializationFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SchemaInitializationException cause) {
        String reason = DatabaseConnectionFailures.rootMessage(cause);
        Cause kind = DatabaseConnectionFailures.classify(cause);
        DatabaseTarget target = DatabaseTarget.of(environment);
        StringBuilder description = new StringBuilder(
                        kind.isConnectionFailure()
                                ? "Runlane could not connect to its database to prepare its schema '"
                                : "Runlane could not apply or check its schema '")
                .append(cause.schema())
                .append("': ")
                .append(reason);
        if (target != null) {
            description.append("\n\n    Tried: ").append(target.describe());
        }
        return new FailureAnalysis(description.toString(), action(kind, cause, target), cause);
    }

    private static String action(Cause kind, SchemaInitializationException cause, @Nullable DatabaseTarget target) {
        String at = target != null ? " at " + target.address() : "";
        String database = target != null && target.database() != null ? target.database() : "<database>";
        String user = target != null && target.user() != null ? target.user() : "<user>";
        String schema = cause.schema();
        return switch (kind) {
            case UNKNOWN_HOST ->
                "The host name "
                        + quoted(DatabaseConnectionFailures.messageOf(cause, UnknownHostException.class))
                        + "does not resolve: correct the host in spring.datasource.url (spring.datasource.*), or check"
                        + " this machine's DNS.";
            case CONNECTION_REFUSED ->
                "Check that PostgreSQL is running and reachable" + at
                        + ", and that spring.datasource.url names its host and port (spring.datasource.*).";
            case UNKNOWN_DATABASE ->
                "Create the database (CREATE DATABASE " + database + ";) or correct the"
                        + " database name at the end of spring.datasource.url (spring.datasource.*).";
            case AUTHENTICATION_FAILED ->
                "Check spring.datasource.username and spring.datasource.password: the"
                        + " user must exist, the password must match, and pg_hba.conf must let the user connect from"
                        + " this host.";
            case TOO_MANY_CONNECTIONS ->
                "PostgreSQL" + at + " accepts no more connections: raise its"
                        + " max_connections, or lower the pool sizes of the applications that share it"
                        + " (spring.datasource.hikari.maximum-pool-size).";
            case TIMED_OUT ->
                "Check that PostgreSQL is running and reachable" + at + " (a firewall that drops"
                        + " packets looks like this), that spring.datasource.url names its host and port"
                        + " (spring.datasource.*), and that spring.datasource.hikari.connection-timeout is long enough.";
            case OTHER_CONNECTION_FAILURE ->
                "Check that PostgreSQL is running and reachable" + at
                        + ", and that the DataSource's URL, user name and password (spring.datasource.*) are right.";
            case PERMISSION_DENIED ->
                "Grant the database user the right to create the schema '" + schema
                        + "' and its tables (GRANT CREATE ON DATABASE " + database + " TO " + user + ";), or create the"
                        + " schema for it (CREATE SCHEMA " + schema + " AUTHORIZATION " + user + ";), or set"
                        + " runlane.schema.initialize=false and apply db/runlane/changelog-master.xml with your own"
                        + " Liquibase or Flyway set-up.";
            case READ_ONLY ->
                "Runlane's connection is read-only: point spring.datasource.url at the primary, not a"
                        + " standby, and leave spring.datasource.hikari.read-only unset. Grant the database user the"
                        + " right to create the schema '" + schema + "' and its tables, or set"
                        + " runlane.schema.initialize=false and apply db/runlane/changelog-master.xml with your own"
                        + " Liquibase or Flyway set-up.";
            case OTHER ->
                "Grant the database user the right to create the schema '" + schema + "' and its tables,"
                        + " or set runlane.schema.initialize=false and apply db/runlane/changelog-master.xml with your"
                        + " own Liquibase or Flyway set-up.";
        };
    }

    private static String quoted(@Nullable String value) {
        return value != null ? "'" + value + "' " : "";
    }
}

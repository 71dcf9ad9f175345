package io.runlane.internal.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * Runlane's SQL relies on PostgreSQL (partial indexes, {@code SKIP LOCKED}, advisory locks, {@code jsonb},
 * {@code LISTEN/NOTIFY}); any other database would fail later with an obscure missing-function error, so start-up
 * checks the product and version first and says so plainly. It then probes, once and only here, the two capabilities
 * that PostgreSQL-compatible databases most often lack: advisory locks (limited queues' claims, batches, schema
 * migration) and {@code LISTEN/NOTIFY} (wake-ups, awaiting results). A database that reports itself as PostgreSQL but
 * refuses either is named at start-up with the capability it refused. The probes run in one transaction that is rolled
 * back, so they leave nothing behind: the lock is transaction-level, and a {@code LISTEN} or notification of a
 * rolled-back transaction never takes effect.
 */
final class PostgresRequirement {

    /** The oldest PostgreSQL major version Runlane supports. */
    public static final int MINIMUM_MAJOR_VERSION = 13;

    private PostgresRequirement() {}

    /** Throws {@link UnsupportedDatabaseException} unless the connection is to PostgreSQL 13 or later. */
    public static void check(Connection connection) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        String product = metaData.getDatabaseProductName();
        String version = metaData.getDatabaseProductVersion();
        boolean postgres = product != null && product.toLowerCase(Locale.ROOT).contains("postgresql");
        if (!postgres || metaData.getDatabaseMajorVersion() < MINIMUM_MAJOR_VERSION) {
            throw new UnsupportedDatabaseException(product + " " + shortVersion(version));
        }
        probe(connection, product + " " + shortVersion(version));
    }

    /** Each capability with the statement that must run for it. */
    private static final String[][] PROBES = {
        {"advisory locks", "SELECT pg_try_advisory_xact_lock(hashtextextended('runlane:capability-probe', 0))"},
        {"LISTEN/NOTIFY", "LISTEN runlane_capability_probe"},
        {"LISTEN/NOTIFY", "SELECT pg_notify('runlane_capability_probe', '')"}
    };

    private static void probe(Connection connection, String found) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            for (String[] probe : PROBES) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(probe[1]);
                } catch (SQLException ex) {
                    throw new UnsupportedDatabaseException(found, probe[0], ex);
                }
            }
        } finally {
            connection.rollback();
            if (autoCommit) {
                connection.setAutoCommit(true);
            }
        }
    }

    /** H2 reports {@code 2.4.240 (2025-09-22)}; the date adds nothing to the message. */
    private static String shortVersion(String version) {
        if (version == null) {
            return "(unknown version)";
        }
        int space = version.indexOf(' ');
        return space > 0 ? version.substring(0, space) : version;
    }
}

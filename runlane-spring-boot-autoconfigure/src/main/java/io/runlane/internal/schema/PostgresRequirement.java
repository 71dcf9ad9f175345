package io.runlane.internal.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Runlane's SQL relies on PostgreSQL (partial indexes, {@code SKIP LOCKED}, advisory locks, {@code jsonb},
 * {@code LISTEN/NOTIFY}); any other database would fail later with an obscure missing-function error, so start-up
 * checks the product and version first and says so plainly.
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

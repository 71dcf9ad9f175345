package io.runlane.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The one PostgreSQL server of a test JVM: an existing server when {@code RUNLANE_TEST_JDBC_URL} is set, otherwise
 * an embedded PostgreSQL started on first use and stopped with the JVM. Tests isolate themselves by schema, and most
 * get their pools and schemas through {@link RunlaneDatabaseTest} rather than from here.
 */
public final class TestDatabase {

    public static final String JDBC_URL_VARIABLE = "RUNLANE_TEST_JDBC_URL";

    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    /** Tells this JVM's schemas from those of other test JVMs (parallel forks) on a shared server. */
    private static final long JVM = ProcessHandle.current().pid();

    private static volatile String jdbcUrl;

    private static HikariDataSource admin;

    private TestDatabase() {}

    /** The JDBC URL of the test server, starting the embedded one if needed. */
    public static synchronized String jdbcUrl() {
        if (jdbcUrl == null) {
            String configured = System.getenv(JDBC_URL_VARIABLE);
            jdbcUrl = configured != null && !configured.isBlank() ? configured : startEmbedded();
        }
        return jdbcUrl;
    }

    /** A new connection pool to the test server, as a separate application instance would have. */
    public static HikariDataSource newDataSource(int maximumPoolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setMaximumPoolSize(maximumPoolSize);
        config.setMinimumIdle(0);
        config.setPoolName("runlane-test-" + SCHEMAS.incrementAndGet());
        return new HikariDataSource(config);
    }

    /** A schema name unique to this JVM (by process id), run and the given owner, dropped first if a previous run left it. */
    public static String freshSchema(DataSource dataSource, String owner) {
        String schema = ("rl_" + owner.replaceAll("[^A-Za-z0-9]", "_") + "_" + JVM + "_" + SCHEMAS.incrementAndGet())
                .toLowerCase(Locale.ROOT);
        if (schema.length() > 63) {
            schema = schema.substring(schema.length() - 63);
            if (Character.isDigit(schema.charAt(0))) {
                schema = "s" + schema.substring(1);
            }
        }
        new JdbcTemplate(dataSource).execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        return schema;
    }

    /**
     * {@link #freshSchema(DataSource, String)} through a small pool that the whole test JVM shares, so that reserving
     * a schema costs a test none of its own connections.
     */
    public static String freshSchema(String owner) {
        return freshSchema(admin(), owner);
    }

    private static synchronized HikariDataSource admin() {
        if (admin == null) {
            // its threads are daemons and its connections end with the JVM, like the embedded server
            admin = newDataSource(2);
        }
        return admin;
    }

    private static String startEmbedded() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("timezone", "Pacific/Chatham")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException ignored) {
                    // the JVM is exiting; the embedded server's directory is temporary
                }
            }));
            return postgres.getJdbcUrl("postgres", "postgres");
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start embedded PostgreSQL", ex);
        }
    }
}

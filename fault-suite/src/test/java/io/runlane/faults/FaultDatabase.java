package io.runlane.faults;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL server the cluster shares. By default an embedded server on a fixed data directory and a fixed port,
 * so that it can be stopped and started again in place (a PostgreSQL restart). When {@code RUNLANE_TEST_JDBC_URL} is
 * set, that server is used instead and never restarted: other people may be using it.
 */
final class FaultDatabase implements AutoCloseable {

    private final String host;

    private final int port;

    private final String database;

    private final String query;

    private final @Nullable Path dataDirectory;

    private @Nullable EmbeddedPostgres embedded;

    private FaultDatabase(String host, int port, String database, String query, @Nullable Path dataDirectory) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.query = query;
        this.dataDirectory = dataDirectory;
    }

    /** The server named by {@code jdbcUrl}, or an embedded one in {@code dataDirectory} when it is blank. */
    static FaultDatabase open(@Nullable String jdbcUrl, Path dataDirectory) throws IOException {
        if (jdbcUrl != null && !jdbcUrl.isBlank()) {
            URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
            String path = uri.getPath();
            return new FaultDatabase(
                    uri.getHost(),
                    uri.getPort() < 0 ? 5432 : uri.getPort(),
                    path == null || path.length() <= 1 ? "postgres" : path.substring(1),
                    uri.getQuery() == null ? "user=postgres" : uri.getQuery(),
                    null);
        }
        FaultDatabase database = new FaultDatabase("127.0.0.1", freePort(), "postgres", "user=postgres", dataDirectory);
        deleteRecursively(dataDirectory);
        database.startEmbedded();
        return database;
    }

    boolean restartable() {
        return dataDirectory != null;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    String describe() {
        return restartable()
                ? "embedded PostgreSQL on port " + port + " in " + dataDirectory
                : "PostgreSQL at " + host + ":" + port + " (never restarted by the suite)";
    }

    /** A JDBC URL for a client that reaches the server at {@code viaPort} on localhost (a proxy) or directly. */
    String jdbcUrl(String viaHost, int viaPort, String applicationName) {
        return "jdbc:postgresql://" + viaHost + ":" + viaPort + "/" + database + "?" + query + "&ApplicationName="
                + applicationName;
    }

    String directJdbcUrl(String applicationName) {
        return jdbcUrl(host, port, applicationName);
    }

    Connection connect(String applicationName) throws SQLException {
        return DriverManager.getConnection(directJdbcUrl(applicationName));
    }

    /** Stops the embedded server (fast shutdown: sessions are terminated), waits, and starts it on the same files. */
    void restart(Duration downtime) throws IOException, InterruptedException {
        if (!restartable()) {
            throw new IllegalStateException("The suite never restarts a server it did not start");
        }
        stopEmbedded();
        Thread.sleep(downtime.toMillis());
        startEmbedded();
    }

    @Override
    public void close() throws IOException {
        stopEmbedded();
    }

    /** Starts on the data directory, creating it when empty; never deletes it, so a restart finds its data. */
    private synchronized void startEmbedded() throws IOException {
        embedded = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("max_connections", "300")
                .setServerConfig("timezone", "Pacific/Chatham")
                .setPGStartupWait(Duration.ofSeconds(60))
                .setOutputRedirector(serverLog())
                .setErrorRedirector(serverLog())
                .start();
    }

    private synchronized void stopEmbedded() throws IOException {
        if (embedded != null) {
            EmbeddedPostgres running = embedded;
            embedded = null;
            running.close();
        }
    }

    private ProcessBuilder.Redirect serverLog() {
        return ProcessBuilder.Redirect.appendTo(
                dataDirectory.resolveSibling("postgres.log").toFile());
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

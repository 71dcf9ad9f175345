package io.runlane.faults;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Two PostgreSQL servers of the machine's own installation (initdb, pg_ctl, pg_basebackup; Debian's {@code
 * postgresql} package) joined by synchronous streaming replication: the primary names its standby in {@code
 * synchronous_standby_names} and commits with {@code synchronous_commit=on}, so it acknowledges a commit only once the
 * standby has flushed it, and promoting the standby loses nothing that was acknowledged.
 *
 * <p>The failover scenarios kill the primary ({@code kill -9} of every process of the server) or freeze it ({@code
 * SIGSTOP}: connections stay open and nothing answers), then promote the standby. The failed server is then
 * discarded and rebuilt with {@code pg_basebackup} as the new primary's standby on its old port, so the instances'
 * multi-host URL names both servers throughout. The servers listen on free ports of 127.0.0.1 and keep their data
 * directories under the suite's directory; when the suite runs as root they run as the system user {@code postgres},
 * because initdb refuses root.
 */
final class ReplicatedPostgres implements AutoCloseable {

    /**
     * The driver settings of the instances' multi-host URL, as {@code docs/high-availability.md} recommends them: a
     * connection goes to whichever server is primary, a dead server costs at most {@code connectTimeout}, a frozen one
     * at most {@code socketTimeout} per statement or connection attempt, and a connection attempt has time to try the
     * second server after a frozen first one ({@code loginTimeout}).
     */
    static final String DRIVER_SETTINGS =
            "targetServerType=primary&connectTimeout=2&socketTimeout=3&loginTimeout=10&tcpKeepAlive=true";

    /** The instances' pool settings, as the guide recommends them; Spring Boot property names. */
    static final List<String> POOL_SETTINGS = List.of(
            "--spring.datasource.hikari.connection-timeout=2000",
            "--spring.datasource.hikari.validation-timeout=1000",
            "--spring.datasource.hikari.keepalive-time=30000",
            "--spring.datasource.hikari.max-lifetime=300000");

    /**
     * The instances' health settings, as the guide recommends them: a readiness group of the application's readiness
     * state and Runlane's indicator (not Boot's {@code db} indicator, which waits for the pool), with Runlane's
     * indicator answering within a second. Only the health endpoint is exposed.
     */
    static final List<String> PROBE_SETTINGS = List.of(
            "--management.endpoint.health.access=read-only",
            "--management.endpoints.web.exposure.include=health",
            "--management.endpoint.health.probes.enabled=true",
            "--management.endpoint.health.group.readiness.include=readinessState,runlane",
            "--runlane.health.timeout=1s");

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

    private static final Duration REPLICATION_TIMEOUT = Duration.ofMinutes(1);

    private static final String SERVER_SETTINGS = """

            # The fault suite's replicated pair (ReplicatedPostgres)
            listen_addresses = '127.0.0.1'
            unix_socket_directories = ''
            max_connections = 300
            wal_level = replica
            hot_standby = on
            synchronous_commit = on
            timezone = 'Pacific/Chatham'
            """;

    private static final String STANDBY_STREAMING = """
            SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = ?
            """;

    /** The state of one server of the pair. */
    private enum Role {
        PRIMARY,
        STANDBY,
        /** Stopped with SIGSTOP: its sockets are open, nothing answers. */
        FROZEN,
        DEAD
    }

    private static final class Server {

        private final String name;

        private final int port;

        private final Path data;

        private Role role = Role.DEAD;

        /** The processes of a frozen server, or of a killed one that may not have exited yet. */
        private List<Long> processes = List.of();

        private Server(String name, int port, Path data) {
            this.name = name;
            this.port = port;
            this.data = data;
        }

        @Override
        public String toString() {
            return name + " (port " + port + ", " + role.name().toLowerCase() + ")";
        }
    }

    /** A failed primary: which server, when the signal was sent ({@link System#nanoTime()}), and how many processes. */
    record Failure(String server, long atNanos, int processes) {}

    /** A finished promotion: when the new primary first accepted a write. */
    record Promotion(String server, long readyNanos, Instant readyAt) {}

    private final Path bin;

    private final Path directory;

    private final boolean asPostgres;

    private final List<Server> servers = new ArrayList<>();

    private ReplicatedPostgres(Path bin, Path directory, boolean asPostgres) throws IOException {
        this.bin = bin;
        this.directory = directory;
        this.asPostgres = asPostgres;
        servers.add(new Server("pg-a", freePort(), directory.resolve("pg-a")));
        servers.add(new Server("pg-b", freePort(), directory.resolve("pg-b")));
    }

    /**
     * Why the pair cannot run on this machine, or empty when it can: the PostgreSQL binaries are missing, or the
     * suite runs as root and there is no {@code postgres} user to run them as.
     */
    static Optional<String> unavailable() {
        if (binaries().isEmpty()) {
            return Optional.of("no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup, postgres) under"
                    + " /usr/lib/postgresql/*/bin or -Dfaults.postgres.bin; install the Debian package postgresql");
        }
        if (isRoot() && !(Files.isExecutable(Path.of("/usr/sbin/runuser")) && userExists("postgres"))) {
            return Optional.of("running as root without a postgres user and runuser to start the servers as"
                    + " (initdb refuses root)");
        }
        return Optional.empty();
    }

    /** Initialises the primary, starts it, and builds its synchronous standby; the pair is ready when it returns. */
    static ReplicatedPostgres start(Path directory) throws IOException, InterruptedException, SQLException {
        Path bin = binaries()
                .orElseThrow(() -> new IllegalStateException(unavailable().orElseThrow()));
        FaultDatabase.deleteRecursively(directory);
        Files.createDirectories(directory);
        boolean asPostgres = isRoot();
        if (asPostgres) {
            UserPrincipal postgres =
                    directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(directory, postgres);
        }
        ReplicatedPostgres pair = new ReplicatedPostgres(bin, directory, asPostgres);
        try {
            pair.initPrimary(pair.servers.get(0));
            pair.rebuildStandby();
        } catch (IOException | InterruptedException | SQLException | RuntimeException ex) {
            pair.close();
            throw ex;
        }
        return pair;
    }

    String describe() {
        return "PostgreSQL " + bin.getParent().getFileName() + " pair " + servers + " with synchronous replication,"
                + " in " + directory;
    }

    /** The instances' URL: both servers, whichever is primary answering, with the recommended time limits. */
    String jdbcUrl(String applicationName) {
        return "jdbc:postgresql://127.0.0.1:" + servers.get(0).port + ",127.0.0.1:" + servers.get(1).port
                + "/postgres?user=postgres&" + DRIVER_SETTINGS + "&ApplicationName=" + applicationName;
    }

    /** A connection of the suite itself, straight to the current primary: the suite knows which one it is. */
    Connection connect(String applicationName) throws SQLException {
        return DriverManager.getConnection(directUrl(primary(), applicationName));
    }

    /** {@code kill -9} of every process of the primary at once, as if its machine had died. */
    synchronized Failure killPrimary() throws IOException, InterruptedException {
        Server primary = primary();
        String described = primary.name + " (port " + primary.port + ")";
        List<Long> processes = processes(primary);
        return new Failure(described, kill(primary, processes), processes.size());
    }

    /** {@code SIGSTOP} of the postmaster and then of every backend: the server hangs with its connections open. */
    synchronized Failure freezePrimary() throws IOException, InterruptedException {
        Server primary = primary();
        String described = primary.name + " (port " + primary.port + ")";
        long postmaster = postmasterPid(primary);
        long at = System.nanoTime();
        List<Long> stopped = new ArrayList<>(List.of(postmaster));
        signal("STOP", stopped);
        // The stopped postmaster forks no new backends; a second look catches one forked just before.
        for (int pass = 0; pass < 2; pass++) {
            List<Long> children = children(postmaster).stream()
                    .filter(pid -> !stopped.contains(pid))
                    .toList();
            signal("STOP", children);
            stopped.addAll(children);
        }
        primary.role = Role.FROZEN;
        primary.processes = stopped;
        return new Failure(described, at, stopped.size());
    }

    /**
     * Promotes the standby and waits until it accepts a write ({@code txid_current()} assigns a transaction id, which
     * a server in recovery refuses), polling on a session opened before the promotion so that no connection set-up
     * delays the moment measured.
     */
    synchronized Promotion promoteStandby() throws IOException, InterruptedException, SQLException {
        Server standby = standby();
        try (Connection connection = DriverManager.getConnection(directUrl(standby, "failover-suite-promotion"));
                Statement statement = connection.createStatement()) {
            run("pg_ctl", "-D", standby.data.toString(), "-W", "promote");
            long deadline = System.nanoTime() + REPLICATION_TIMEOUT.toNanos();
            while (true) {
                try {
                    statement.execute("SELECT txid_current()");
                    long ready = System.nanoTime();
                    Instant readyAt = Instant.now();
                    standby.role = Role.PRIMARY;
                    return new Promotion(standby.name, ready, readyAt);
                } catch (SQLException ex) {
                    if (System.nanoTime() > deadline) {
                        throw ex;
                    }
                    Thread.sleep(10);
                }
            }
        }
    }

    /** {@code kill -9} of a frozen or otherwise failed server, so that its open connections finally break. */
    synchronized void discardFailed() throws IOException, InterruptedException {
        for (Server server : servers) {
            if (server.role == Role.FROZEN) {
                kill(server, server.processes);
            }
        }
    }

    /** Makes the pair whole again after a failover: the failed server is discarded and rebuilt as a standby. */
    synchronized void restore() throws IOException, InterruptedException, SQLException {
        if (servers.stream().anyMatch(server -> server.role != Role.PRIMARY && server.role != Role.STANDBY)) {
            discardFailed();
            rebuildStandby();
        }
    }

    @Override
    public synchronized void close() {
        for (Server server : servers) {
            try {
                if (server.role == Role.FROZEN) {
                    kill(server, server.processes);
                } else if (server.role != Role.DEAD) {
                    kill(server, processes(server));
                }
                awaitExit(server);
            } catch (IOException | RuntimeException ex) {
                System.err.println("Stopping " + server + " failed: " + ex);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void initPrimary(Server server) throws IOException, InterruptedException {
        run(
                "initdb",
                "-D",
                server.data.toString(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions");
        Files.writeString(
                server.data.resolve("postgresql.conf"),
                Files.readString(server.data.resolve("postgresql.conf")) + SERVER_SETTINGS);
        startServer(server);
        server.role = Role.PRIMARY;
    }

    /**
     * Builds the standby from the current primary on the other server's port, starts it, waits until it streams,
     * and only then makes the primary's commits wait for it, so the base backup never copies that setting: a
     * promoted standby must accept writes while it has no standby of its own.
     */
    private void rebuildStandby() throws IOException, InterruptedException, SQLException {
        Server primary = primary();
        Server standby = servers.get(1 - servers.indexOf(primary));
        awaitExit(standby);
        FaultDatabase.deleteRecursively(standby.data);
        run(
                "pg_basebackup",
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(primary.port),
                "-U",
                "postgres",
                "-D",
                standby.data.toString(),
                "-R",
                "-X",
                "stream",
                "-c",
                "fast",
                "--no-sync");
        startServer(standby);
        standby.role = Role.STANDBY;
        try (Connection connection = connect("failover-suite-replication");
                Statement statement = connection.createStatement()) {
            awaitStandby(connection, "async");
            statement.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
            statement.execute("SELECT pg_reload_conf()");
            awaitStandby(connection, "sync");
        }
    }

    private static void awaitStandby(Connection connection, String syncState)
            throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + REPLICATION_TIMEOUT.toNanos();
        try (var statement = connection.prepareStatement(STANDBY_STREAMING)) {
            statement.setString(1, syncState);
            while (true) {
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "The standby did not stream as " + syncState + " within " + REPLICATION_TIMEOUT);
                }
                Thread.sleep(50);
            }
        }
    }

    private void startServer(Server server) throws IOException, InterruptedException {
        run(
                "pg_ctl",
                "-D",
                server.data.toString(),
                "-l",
                directory.resolve(server.name + ".log").toString(),
                "-w",
                "-t",
                "60",
                "-o",
                "-p " + server.port,
                "start");
    }

    private Server primary() {
        return servers.stream()
                .filter(server -> server.role == Role.PRIMARY)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No primary: " + servers));
    }

    private Server standby() {
        return servers.stream()
                .filter(server -> server.role == Role.STANDBY)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No standby: " + servers));
    }

    private static String directUrl(Server server, String applicationName) {
        return "jdbc:postgresql://127.0.0.1:" + server.port + "/postgres?user=postgres&connectTimeout=2"
                + "&socketTimeout=10&ApplicationName=" + applicationName;
    }

    /** The postmaster and its children, the postmaster first. */
    private static List<Long> processes(Server server) throws IOException {
        long postmaster = postmasterPid(server);
        List<Long> all = new ArrayList<>(List.of(postmaster));
        all.addAll(children(postmaster));
        return all;
    }

    /**
     * Stops the postmaster first, so it restarts nothing, then kills all at once; answers when the kill was sent.
     * The processes may take a moment to exit: {@link #awaitExit} waits for them before their port and data
     * directory are used again.
     */
    private long kill(Server server, List<Long> pids) throws IOException, InterruptedException {
        List<Long> all = new ArrayList<>(pids);
        if (!pids.isEmpty()) {
            signal("STOP", pids.subList(0, 1));
            children(pids.get(0)).stream().filter(pid -> !all.contains(pid)).forEach(all::add);
            signal("KILL", all);
        }
        long at = System.nanoTime();
        server.role = Role.DEAD;
        server.processes = all;
        return at;
    }

    private static void awaitExit(Server server) throws InterruptedException {
        long deadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
        while (server.processes.stream().anyMatch(ReplicatedPostgres::alive) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        server.processes = List.of();
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static long postmasterPid(Server server) throws IOException {
        return Long.parseLong(
                Files.readAllLines(server.data.resolve("postmaster.pid")).get(0).trim());
    }

    private static List<Long> children(long pid) {
        return ProcessHandle.of(pid).stream()
                .flatMap(ProcessHandle::children)
                .map(ProcessHandle::pid)
                .toList();
    }

    private void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        // A process that is already gone makes kill exit non-zero; that is fine here.
        execute(command, false);
    }

    /** Runs one of the server programs, as {@code postgres} when the suite is root; fails on a non-zero exit. */
    private void run(String program, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (asPostgres) {
            command.addAll(List.of("/usr/sbin/runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(List.of(arguments));
        execute(command, true);
    }

    private void execute(List<String> command, boolean mustSucceed) throws IOException, InterruptedException {
        Path log = directory.resolve("commands.log");
        Files.writeString(
                log, "$ " + String.join(" ", command) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within " + COMMAND_TIMEOUT);
        }
        if (mustSucceed && process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + "; see " + log);
        }
    }

    /** The newest installed server binaries, or those {@code -Dfaults.postgres.bin} names. */
    private static Optional<Path> binaries() {
        String configured = System.getProperty("faults.postgres.bin", "");
        if (!configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(ReplicatedPostgres::complete);
        }
        Path installations = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(installations)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(installations)) {
            return versions.map(version -> version.resolve("bin"))
                    .filter(ReplicatedPostgres::complete)
                    .max(Comparator.comparing(ReplicatedPostgres::majorVersion));
        } catch (IOException ex) {
            return Optional.empty();
        }
    }

    private static boolean complete(Path bin) {
        return Stream.of("initdb", "pg_ctl", "pg_basebackup", "postgres")
                .allMatch(program -> Files.isExecutable(bin.resolve(program)));
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException ex) {
            return 0;
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static boolean userExists(String user) {
        try {
            return Files.readAllLines(Path.of("/etc/passwd")).stream().anyMatch(line -> line.startsWith(user + ":"));
        } catch (IOException ex) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

package io.runlane.faults;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The cluster under test: one PostgreSQL, and {@code size} instances, each linked to it through its own proxy. All
 * instances share one fresh Runlane schema; scenarios keep apart by the prefix of their idempotency keys. The
 * effect log and the application table of transactional steps ({@link StepRows}) live in a schema of their own next
 * to it.
 *
 * <p>A failover cluster ({@link #onPair}) runs Runlane on a {@link ReplicatedPostgres} pair instead, through a
 * multi-host URL and without proxies, while its effect log stays on the suite's own PostgreSQL, so the record of
 * what the handlers did never goes through the failover it measures.
 */
final class FaultCluster implements AutoCloseable {

    static final String ENVIRONMENT = "faults";

    /** Short, so that recovery happens within seconds; long enough that a machine under load keeps its leases. */
    static final Duration LEASE = Duration.ofSeconds(5);

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

    private final FaultDatabase database;

    private final @Nullable ReplicatedPostgres pair;

    private final Path directory;

    private final String schema;

    private final String applicationPrefix;

    private final List<FaultNode> nodes = new ArrayList<>();

    private final List<TcpProxy> proxies = new ArrayList<>();

    FaultCluster(FaultDatabase database, String suiteId, int size, Path directory) throws IOException, SQLException {
        this(database, null, "faults", suiteId, size, directory);
    }

    /**
     * A cluster whose instances run Runlane on {@code pair}, with the pool and driver settings the high-availability
     * guide recommends; the effect log lives on {@code database}. Its instances' logs go to {@code directory}.
     */
    static FaultCluster onPair(
            ReplicatedPostgres pair, FaultDatabase database, String suiteId, int size, Path directory)
            throws IOException, SQLException {
        return new FaultCluster(database, pair, "failover", suiteId, size, directory);
    }

    private FaultCluster(
            FaultDatabase database,
            @Nullable ReplicatedPostgres pair,
            String kind,
            String suiteId,
            int size,
            Path directory)
            throws IOException, SQLException {
        this.database = database;
        this.pair = pair;
        this.directory = directory;
        this.schema = "rl_" + kind + "_" + suiteId;
        this.applicationPrefix = kind + "-" + suiteId + "-";
        createEffectLog();
        for (int i = 1; i <= size; i++) {
            String name = "node-" + i;
            TcpProxy proxy = null;
            List<String> settings = new ArrayList<>();
            if (pair == null) {
                proxy = new TcpProxy(name, database.host(), database.port());
                proxies.add(proxy);
                settings.add("--spring.datasource.url="
                        + database.jdbcUrl("127.0.0.1", proxy.port(), runlaneApplication(name)));
                settings.add("--spring.datasource.hikari.connection-timeout=3000");
            } else {
                settings.add("--spring.datasource.url=" + pair.jdbcUrl(runlaneApplication(name)));
                settings.addAll(ReplicatedPostgres.POOL_SETTINGS);
                settings.addAll(ReplicatedPostgres.PROBE_SETTINGS);
                settings.add("--spring.web.error.include-exception=true");
            }
            settings.addAll(List.of(
                    "--spring.datasource.hikari.maximum-pool-size=16",
                    "--spring.datasource.hikari.initialization-fail-timeout=-1",
                    "--faults.effects.url=" + database.directJdbcUrl(applicationPrefix + "effects-" + name),
                    "--faults.effects.schema=" + effectSchema(),
                    "--runlane.environment=" + ENVIRONMENT,
                    "--runlane.schema.name=" + schema,
                    "--runlane.worker.concurrency=8",
                    "--runlane.worker.lease-duration=" + LEASE.toMillis() + "ms",
                    "--runlane.worker.heartbeat-interval=500ms",
                    "--runlane.worker.poll-interval=500ms",
                    "--runlane.worker.shutdown-timeout=2s",
                    "--runlane.recovery.interval=1s",
                    "--runlane.pruning.enabled=false",
                    "--spring.main.banner-mode=off",
                    "--spring.jmx.enabled=false",
                    "--server.shutdown=graceful",
                    "--management.endpoints.access.default=none"));
            nodes.add(new FaultNode(name, freePort(), proxy, settings, directory.resolve(name + ".log")));
        }
    }

    FaultDatabase database() {
        return database;
    }

    /** The replicated pair Runlane runs on, or {@code null} when it runs on {@link #database()}. */
    @Nullable
    ReplicatedPostgres pair() {
        return pair;
    }

    /** Where the instances' logs ({@code node-N.log}) are. */
    Path directory() {
        return directory;
    }

    String schema() {
        return schema;
    }

    String effectSchema() {
        return schema + "_fx";
    }

    List<FaultNode> nodes() {
        return nodes;
    }

    FaultNode node(int index) {
        return nodes.get(index);
    }

    /** The node whose running generation is {@code instance} ({@code node-2.g3}). */
    FaultNode nodeRunning(String instance) {
        return nodes.stream()
                .filter(node -> instance.startsWith(node.name() + "."))
                .findFirst()
                .orElseThrow();
    }

    /** The application name the instance's Runlane connections carry, which pg_terminate_backend aims at. */
    String runlaneApplication(String nodeName) {
        return applicationPrefix + "runlane-" + nodeName;
    }

    String runlaneApplicationPattern() {
        return applicationPrefix + "runlane-%";
    }

    /** A connection to the database holding Runlane's tables. */
    Connection connect() throws SQLException {
        return pair != null ? pair.connect(applicationPrefix + "suite") : database.connect(applicationPrefix + "suite");
    }

    /** A connection to the database holding the effect log: {@link #connect()}'s but for a failover cluster. */
    Connection connectEffects() throws SQLException {
        return database.connect(applicationPrefix + "suite");
    }

    /** Starts every stopped instance at once and waits until all are ready. */
    void startAll() {
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        for (FaultNode node : nodes) {
            if (!node.isAlive()) {
                ready.add(CompletableFuture.runAsync(() -> {
                    try {
                        restart(node, node.skew());
                    } catch (IOException | InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                }));
            }
        }
        CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Starts {@code node} (already stopped) with {@code skew} and waits until it is ready. A start that fails because
     * the database was unreachable at that moment (a combined scenario restarts it) is tried again, up to ten times.
     */
    void restart(FaultNode node, @Nullable ClockSkew skew) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            node.start(skew);
            try {
                node.awaitReady(READY_TIMEOUT);
                return;
            } catch (FaultNode.ExitedWhileStarting ex) {
                if (attempt == 10) {
                    throw ex;
                }
                System.out.println("FAULTS-EVENT " + ex.getMessage() + "; starting it again");
            }
        }
    }

    /** Heals every link, removes latency and starts stopped instances: the cluster before a scenario or a drain. */
    void restore() throws IOException, InterruptedException {
        if (pair != null) {
            try {
                pair.restore();
            } catch (SQLException ex) {
                throw new IOException("Rebuilding the standby failed", ex);
            }
        }
        for (TcpProxy proxy : proxies) {
            proxy.heal();
            proxy.latency(Duration.ZERO);
        }
        startAll();
    }

    void mark(String text) {
        nodes.forEach(node -> node.mark(text));
    }

    @Override
    public void close() {
        for (FaultNode node : nodes) {
            try {
                node.close();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        proxies.forEach(TcpProxy::close);
    }

    /** Drops the suite's schemas from a server the suite did not start, once every scenario passed. */
    void dropSchemas() {
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                Connection effects = connectEffects();
                Statement effectStatement = effects.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            effectStatement.execute("DROP SCHEMA IF EXISTS " + effectSchema() + " CASCADE");
        } catch (SQLException ex) {
            System.err.println("Dropping the suite's schemas failed: " + ex);
        }
    }

    private void createEffectLog() throws SQLException {
        try (Connection connection = connectEffects();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + effectSchema());
            statement.execute("""
                    CREATE TABLE %s.effects (
                        id         uuid        PRIMARY KEY,
                        run_id     uuid        NOT NULL,
                        attempt    integer     NOT NULL,
                        instance   text        NOT NULL,
                        scenario   text        NOT NULL,
                        planned_ms bigint      NOT NULL,
                        payload_seq bigint,
                        started_at timestamptz NOT NULL,
                        ended_at   timestamptz,
                        step_written_at timestamptz
                    )""".formatted(effectSchema()));
            statement.execute("CREATE INDEX ON %s.effects (run_id)".formatted(effectSchema()));
            // No unique constraint: a step that wrote its row twice must show as two rows.
            statement.execute("""
                    CREATE TABLE %s.step_rows (
                        run_id     uuid        NOT NULL,
                        attempt    integer     NOT NULL,
                        instance   text        NOT NULL,
                        step_id    text        NOT NULL,
                        written_at timestamptz NOT NULL
                    )""".formatted(effectSchema()));
            statement.execute("CREATE INDEX ON %s.step_rows (run_id)".formatted(effectSchema()));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

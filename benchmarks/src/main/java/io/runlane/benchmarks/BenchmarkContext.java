package io.runlane.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.BeanValidationPayloadValidator;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import jakarta.validation.Validation;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * What every scenario shares: the options, one connection pool, Runlane's schema, and engines assembled by hand the
 * way the tests build them. Every scenario starts from empty tables, so that runs left by one never affect the next.
 */
final class BenchmarkContext implements AutoCloseable {

    /** Runlane's tables and the plain JDBC baselines' tables live here; dropped before and after a run. */
    static final String SCHEMA = "runlane_bench";

    /** Connections for the largest scenario: 16 triggering threads, or one worker of 8 with its helpers. */
    private static final int POOL_SIZE = 20;

    private final BenchmarkOptions options;

    private final BenchmarkDatabase database;

    private final HikariDataSource pool;

    private final JdbcTemplate jdbc;

    private final CostMeter costs;

    private final PayloadCodec payloads = new PayloadCodec(
            JsonMapper.builder().findAndAddModules().build(),
            new BeanValidationPayloadValidator(
                    Validation.buildDefaultValidatorFactory().getValidator()));

    private final TaskRegistry tasks;

    private final long began = System.nanoTime();

    private final Set<String> schemas = new LinkedHashSet<>();

    BenchmarkContext(BenchmarkOptions options, BenchmarkDatabase database) {
        this.options = options;
        this.database = database;
        this.pool = database.pool(POOL_SIZE);
        this.jdbc = new JdbcTemplate(pool);
        this.costs = CostMeter.of(jdbc);
        TaskDefinitionReader reader = new TaskDefinitionReader(RunlaneSettings.defaults(SCHEMA));
        this.tasks = new TaskRegistry(List.of(
                reader.read(new BenchmarkTasks.OrderTask()),
                reader.read(new BenchmarkTasks.DebouncedTask()),
                reader.read(new BenchmarkTasks.NoopTask()),
                reader.read(new BenchmarkTasks.LimitedTask()),
                reader.read(new BenchmarkTasks.CountedTask()),
                reader.read(new BenchmarkTasks.TimedTask()),
                reader.read(new BenchmarkTasks.StepsTask()),
                reader.read(new BenchmarkTasks.ParentTask()),
                reader.read(new BenchmarkTasks.ChildTask()),
                reader.read(new BenchmarkTasks.ThrottledTask())));
    }

    /** Creates Runlane's schema afresh, with the table the plain JDBC trigger baselines insert into. */
    void createSchema() {
        createRunlaneSchema(SCHEMA);
        jdbc.execute("CREATE TABLE " + SCHEMA + ".baseline (id uuid PRIMARY KEY, payload jsonb NOT NULL,"
                + " created_at timestamptz NOT NULL DEFAULT now())");
    }

    /** Creates the schema afresh and applies Runlane's changelog to it. */
    void createRunlaneSchema(String schema) {
        createEmptySchema(schema);
        new RunlaneSchemaInitializer(pool, schema).initialize();
    }

    /** Drops the schema if it exists and creates it empty; {@link #close} drops it at the end. */
    void createEmptySchema(String schema) {
        jdbc.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        jdbc.execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
    }

    void dropSchema(String schema) {
        jdbc.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        schemas.remove(schema);
    }

    /** Drops every schema this run created, leaving an existing server as it was. */
    private void dropSchemas() {
        for (String schema : schemas) {
            jdbc.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
        schemas.clear();
    }

    /** Runlane's tables that the benchmarks fill, empty and vacuum, qualified with {@code schema}. */
    static List<String> runlaneTables(String schema) {
        return List.of(schema + ".runs", schema + ".run_events", schema + ".run_steps", schema + ".throttle_starts");
    }

    /** Empties Runlane's tables and the baseline table. */
    void resetRuns() {
        jdbc.execute("TRUNCATE " + String.join(", ", runlaneTables(SCHEMA)) + ", " + SCHEMA + ".baseline");
    }

    /**
     * Brings freshly filled tables to the state autovacuum keeps them in (statistics, visibility map), so that a
     * measurement does not depend on when autovacuum happens to run.
     */
    void vacuumAnalyze(String... qualifiedTables) {
        for (String table : qualifiedTables) {
            jdbc.execute("VACUUM ANALYZE " + table);
        }
    }

    void vacuumAnalyzeRunlane() {
        vacuumAnalyzeRunlane(SCHEMA);
    }

    void vacuumAnalyzeRunlane(String schema) {
        vacuumAnalyze(runlaneTables(schema).toArray(String[]::new));
    }

    /** A new engine on the shared pool with default execution settings; its worker is not started. */
    RunlaneEngine engine() {
        return engine(ExecutionSettings.defaults());
    }

    RunlaneEngine engine(ExecutionSettings execution) {
        return engine(SCHEMA, execution);
    }

    /** A new engine on another Runlane schema, created with {@link #createRunlaneSchema}. */
    RunlaneEngine engine(String schema, ExecutionSettings execution) {
        return engine(pool, schema, execution);
    }

    /**
     * A new engine on a pool of its own, as a separate application instance has; the caller closes the engine and the
     * pool.
     */
    RunlaneEngine engine(DataSource dataSource, String schema, ExecutionSettings execution) {
        return RunlaneEngine.builder(
                        dataSource,
                        new JdbcTransactionManager(dataSource),
                        RunlaneSettings.defaults(schema),
                        tasks,
                        payloads)
                .execution(execution)
                .build();
    }

    void progress(String format, Object... args) {
        long seconds = (System.nanoTime() - began) / 1_000_000_000L;
        System.out.printf(
                Locale.ROOT, "[%3d:%02d] %s%n", seconds / 60, seconds % 60, String.format(Locale.ROOT, format, args));
    }

    BenchmarkOptions options() {
        return options;
    }

    HikariDataSource pool() {
        return pool;
    }

    /** A new pool of {@code size} connections on the benchmark's database; the caller closes it. */
    HikariDataSource newPool(int size) {
        return database.pool(size);
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    /** CPU time of the database server (when it runs on this machine) and of this process, and the server's WAL. */
    CostMeter costs() {
        return costs;
    }

    /** Drops the schemas this run created and closes the pool. */
    @Override
    public void close() {
        try {
            dropSchemas();
        } finally {
            pool.close();
        }
    }
}

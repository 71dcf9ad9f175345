package io.runlane.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.registry.BeanValidationPayloadValidator;
import io.runlane.internal.registry.FunctionTaskHandler;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import jakarta.validation.Validation;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Builds a Runlane engine by hand on a data source and schema, the way one application instance would have it.
 * Several instances on separate data sources act as separate application instances on one database.
 */
public final class TestRunlane {

    private static final PayloadCodec PAYLOADS;

    static {
        PAYLOADS = new PayloadCodec(
                JsonMapper.builder().findAndAddModules().build(),
                new BeanValidationPayloadValidator(
                        Validation.buildDefaultValidatorFactory().getValidator()));
    }

    private final DataSource dataSource;

    private final RunlaneEngine engine;

    private TestRunlane(DataSource dataSource, RunlaneSettings settings, List<?> handlers) {
        this(dataSource, settings, ExecutionSettings.defaults(), EngineListener.NONE, handlers);
    }

    private TestRunlane(
            DataSource dataSource,
            RunlaneSettings settings,
            ExecutionSettings execution,
            EngineListener listener,
            List<?> handlers) {
        this(dataSource, settings, execution, ScheduleSettings.defaults(), listener, handlers);
    }

    private TestRunlane(
            DataSource dataSource,
            RunlaneSettings settings,
            ExecutionSettings execution,
            ScheduleSettings schedules,
            EngineListener listener,
            List<?> handlers) {
        this.dataSource = dataSource;
        TaskDefinitionReader reader = new TaskDefinitionReader(settings);
        TaskRegistry registry =
                new TaskRegistry(handlers.stream().map(reader::read).toList());
        this.engine = RunlaneEngine.builder(
                        dataSource, new JdbcTransactionManager(dataSource), settings, registry, PAYLOADS)
                .execution(execution)
                .schedules(schedules)
                .listener(listener)
                .build();
    }

    /**
     * An instance with schedule settings, execution settings and a listener, schema created if needed. Its firer,
     * worker and maintenance are not started.
     */
    public static TestRunlane withSchedules(
            DataSource dataSource,
            String schema,
            ScheduleSettings schedules,
            ExecutionSettings execution,
            EngineListener listener,
            Object... handlers) {
        new RunlaneSchemaInitializer(dataSource, schema).initialize();
        return new TestRunlane(
                dataSource, RunlaneSettings.defaults(schema), execution, schedules, listener, Arrays.asList(handlers));
    }

    /**
     * An instance with execution settings and an attempt listener, schema created if needed. Its worker and
     * maintenance are not started: call {@link #startWorker()} and {@link #startMaintenance()}.
     */
    public static TestRunlane withExecution(
            DataSource dataSource,
            String schema,
            UnaryOperator<RunlaneSettings> settings,
            ExecutionSettings execution,
            EngineListener listener,
            Object... handlers) {
        new RunlaneSchemaInitializer(dataSource, schema).initialize();
        return new TestRunlane(
                dataSource,
                settings.apply(RunlaneSettings.defaults(schema)),
                execution,
                listener,
                Arrays.asList(handlers));
    }

    public TestRunlane startWorker() {
        engine.worker().start();
        return this;
    }

    /** Starts this instance's schedule firer. */
    public TestRunlane startFirer() {
        engine.schedules().firer().start();
        return this;
    }

    public TestRunlane startMaintenance() {
        engine.maintenance().start();
        return this;
    }

    /**
     * Stops the worker (waiting for running attempts up to the shutdown timeout) and maintenance, then checks that
     * every run row keeps the row rules ({@link RowRules}), unless the instance's pool was closed: a test that lets an
     * instance die that way stops it afterwards, and checks the rows through another instance.
     */
    public void stop() {
        engine.schedules().firer().stop();
        engine.worker().stop();
        engine.maintenance().stop();
        if (!(dataSource instanceof HikariDataSource pool && pool.isClosed())) {
            RowRules.check(jdbc(), schema());
        }
    }

    /** The current state of a run, which must exist. */
    public io.runlane.Run run(java.util.UUID runId) {
        return engine.template().runs().get(runId).orElseThrow(() -> new AssertionError("no run " + runId));
    }

    /** Creates the schema (if needed) and an engine for these handlers. */
    public static TestRunlane start(DataSource dataSource, String schema, Object... handlers) {
        return start(dataSource, schema, UnaryOperator.identity(), handlers);
    }

    public static TestRunlane start(
            DataSource dataSource, String schema, UnaryOperator<RunlaneSettings> customizer, Object... handlers) {
        new RunlaneSchemaInitializer(dataSource, schema).initialize();
        return new TestRunlane(dataSource, customizer.apply(RunlaneSettings.defaults(schema)), Arrays.asList(handlers));
    }

    /** An engine on a schema that something else migrated (Flyway, in a test), without Runlane's initializer. */
    public static TestRunlane onMigratedSchema(DataSource dataSource, String schema, Object... handlers) {
        return new TestRunlane(dataSource, RunlaneSettings.defaults(schema), Arrays.asList(handlers));
    }

    /** Another instance on another data source sharing the schema. */
    public TestRunlane instanceOn(DataSource otherDataSource) {
        return new TestRunlane(
                otherDataSource,
                engine.settings(),
                engine.tasks().all().stream()
                        .<Object>map(definition -> definition.handler() instanceof FunctionTaskHandler function
                                ? function.function()
                                : definition.handler())
                        .toList());
    }

    public RunlaneTemplate template() {
        return engine.template();
    }

    public RunlaneEngine engine() {
        return engine;
    }

    public String schema() {
        return engine.settings().schema();
    }

    public JdbcTemplate jdbc() {
        return new JdbcTemplate(dataSource);
    }

    /** Moves an active run to a terminal status through the engine's internal transition (what workers will call). */
    public io.runlane.Run finish(java.util.UUID runId, io.runlane.RunStatus status) {
        io.runlane.RunFailure failure = status == io.runlane.RunStatus.FAILED
                ? new io.runlane.RunFailure("exception", IllegalStateException.class.getName(), "boom")
                : null;
        return engine.transitions()
                .finish(runId, status, failure, "test", null)
                .orElseThrow(() -> new AssertionError("run " + runId + " was not active"));
    }

    /**
     * Makes a finished run look {@code age} older: its finish time and its key's retention move back together, as
     * if the database clock had advanced. Lets tests probe TTL boundaries without waiting (S-RL-3).
     */
    public void age(java.util.UUID runId, java.time.Duration age) {
        long micros = age.toNanos() / 1000;
        jdbc().update(
                        "UPDATE " + schema() + ".runs SET finished_at = finished_at - make_interval(secs => ? / 1e6),"
                                + " created_at = created_at - make_interval(secs => ? / 1e6) WHERE id = ?",
                        micros,
                        micros,
                        runId);
    }

    /** The owners' index predicate ({@code runs_idempotency_key_owner_uq}): the runs that hold their key. */
    private static final String HOLDS_KEY = "idempotency_key IS NOT NULL AND NOT idempotency_key_released"
            + " AND status <> 'FAILED' AND (finished_at IS NULL OR idempotency_key_ttl_ms > 0)";

    /** The retention of a key's holder, or null when nobody holds it or its holder is active. */
    public java.time.Instant retainedUntil(String taskId, String key) {
        return jdbc().query(
                        "SELECT finished_at + idempotency_key_ttl_ms * interval '1 millisecond' FROM " + schema()
                                + ".runs WHERE environment = ? AND task_id = ? AND idempotency_key = ? AND "
                                + HOLDS_KEY,
                        rs -> rs.next() && rs.getObject(1) != null
                                ? rs.getObject(1, java.time.OffsetDateTime.class)
                                        .toInstant()
                                : null,
                        engine.settings().environment(),
                        taskId,
                        key);
    }

    /** Whether a run holds the key at all (active, retained or expired). */
    public boolean hasKeyRow(String taskId, String key) {
        return Boolean.TRUE.equals(jdbc().queryForObject(
                        "SELECT exists(SELECT FROM " + schema()
                                + ".runs WHERE environment = ? AND task_id = ? AND idempotency_key = ? AND " + HOLDS_KEY
                                + ")",
                        Boolean.class,
                        engine.settings().environment(),
                        taskId,
                        key));
    }

    /** Rows in each of Runlane's tables, to prove that a refused call wrote nothing. */
    public RowCounts rowCounts() {
        JdbcTemplate jdbc = jdbc();
        return new RowCounts(
                count(jdbc, "runs", "true"), count(jdbc, "run_events", "true"), count(jdbc, "runs", HOLDS_KEY));
    }

    private long count(JdbcTemplate jdbc, String table, String where) {
        return jdbc.queryForObject("SELECT count(*) FROM " + schema() + "." + table + " WHERE " + where, Long.class);
    }

    /** Row counts of Runlane's tables, and how many runs hold their idempotency key. */
    public record RowCounts(long runs, long events, long idempotencyKeyHolders) {}
}

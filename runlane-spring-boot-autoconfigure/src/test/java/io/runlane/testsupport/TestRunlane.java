package io.runlane.testsupport;

import io.runlane.RunlaneTemplate;
import io.runlane.TaskHandler;
import io.runlane.internal.RunlaneEngine;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.trigger.BeanValidationPayloadValidator;
import io.runlane.internal.trigger.PayloadCodec;
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

    private TestRunlane(DataSource dataSource, RunlaneSettings settings, List<TaskHandler<?>> handlers) {
        this.dataSource = dataSource;
        TaskDefinitionReader reader = new TaskDefinitionReader(settings);
        TaskRegistry registry = new TaskRegistry(handlers.stream().map(reader::read).toList());
        this.engine = new RunlaneEngine(
                dataSource, new JdbcTransactionManager(dataSource), settings, registry, PAYLOADS);
    }

    /** Creates the schema (if needed) and an engine for these handlers. */
    public static TestRunlane start(DataSource dataSource, String schema, TaskHandler<?>... handlers) {
        return start(dataSource, schema, UnaryOperator.identity(), handlers);
    }

    public static TestRunlane start(
            DataSource dataSource,
            String schema,
            UnaryOperator<RunlaneSettings> customizer,
            TaskHandler<?>... handlers) {
        new RunlaneSchemaInitializer(dataSource, schema).initialize();
        return new TestRunlane(dataSource, customizer.apply(RunlaneSettings.defaults(schema)), Arrays.asList(handlers));
    }

    /** Another instance on another data source sharing the schema. */
    public TestRunlane instanceOn(DataSource otherDataSource) {
        return new TestRunlane(otherDataSource, engine.settings(), engine.tasks().all().stream()
                .<TaskHandler<?>>map(definition -> definition.handler())
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

    /** Rows in each of Runlane's tables, to prove that a refused call wrote nothing. */
    public RowCounts rowCounts() {
        JdbcTemplate jdbc = jdbc();
        return new RowCounts(
                count(jdbc, "runs"), count(jdbc, "run_events"), count(jdbc, "idempotency_keys"));
    }

    private long count(JdbcTemplate jdbc, String table) {
        return jdbc.queryForObject("SELECT count(*) FROM " + schema() + "." + table, Long.class);
    }

    /** Row counts of Runlane's tables. */
    public record RowCounts(long runs, long events, long idempotencyKeys) {}
}

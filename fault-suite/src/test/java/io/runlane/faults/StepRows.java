package io.runlane.faults;

import io.runlane.StepContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The application's own table that transactional steps write (S-ST-8): one row per execution of a step, through the
 * instance's {@code DataSource} (the one Runlane uses, behind the fault proxy), so the insert joins the step's
 * transaction and commits or rolls back with its record. The table has no unique constraint, so a step whose effect
 * committed twice shows as two rows.
 */
@Component
class StepRows {

    private static final String INSERT = """
            INSERT INTO %s.step_rows (run_id, attempt, instance, step_id, written_at)
            VALUES (?, ?, ?, ?, clock_timestamp())
            """;

    private final JdbcTemplate jdbc;

    private final String insert;

    private final String instance;

    StepRows(
            JdbcTemplate jdbc,
            @Value("${faults.effects.schema}") String schema,
            @Value("${faults.instance}") String instance) {
        this.jdbc = jdbc;
        this.insert = INSERT.formatted(schema);
        this.instance = instance;
    }

    /** Writes the step's row in the step's transaction. */
    void write(StepContext step, int attempt) {
        jdbc.update(insert, step.runId(), attempt, instance, step.stepId());
    }
}

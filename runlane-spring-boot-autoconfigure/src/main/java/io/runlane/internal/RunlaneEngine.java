package io.runlane.internal;

import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.jdbc.IdempotencyKeyResets;
import io.runlane.internal.jdbc.RunAdmissions;
import io.runlane.internal.jdbc.RunReads;
import io.runlane.internal.jdbc.RunTransitions;
import io.runlane.internal.jdbc.SqlTemplate;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.trigger.DefaultIdempotencyKeyOperations;
import io.runlane.internal.trigger.DefaultRunOperations;
import io.runlane.internal.trigger.DefaultRunlaneTemplate;
import io.runlane.internal.trigger.PayloadCodec;
import io.runlane.internal.trigger.TriggerPlanner;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wires the engine's parts for one {@link DataSource}. The auto-configuration exposes its parts as beans; tests and
 * benchmarks build several engines by hand, one per data source, to act as separate application instances.
 */
public final class RunlaneEngine {

    private final RunlaneSettings settings;

    private final TaskRegistry tasks;

    private final RunReads reads;

    private final RunTransitions transitions;

    private final RunlaneTemplate template;

    public RunlaneEngine(
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            RunlaneSettings settings,
            TaskRegistry tasks,
            PayloadCodec payloads) {
        JdbcClient jdbc = JdbcClient.create(dataSource);
        SqlTemplate sql = new SqlTemplate(settings.schema());
        String environment = settings.environment();
        this.settings = settings;
        this.tasks = tasks;
        this.reads = new RunReads(jdbc, sql, environment);
        this.transitions = new RunTransitions(jdbc, sql, environment);
        RunOperations runs = new DefaultRunOperations(reads);
        IdempotencyKeyOperations keys =
                new DefaultIdempotencyKeyOperations(tasks, new IdempotencyKeyResets(jdbc, sql, environment));
        RunAdmissions admissions =
                new RunAdmissions(jdbc, new TransactionTemplate(transactionManager), reads, sql, environment);
        this.template = new DefaultRunlaneTemplate(tasks, new TriggerPlanner(settings, payloads), admissions, runs, keys);
    }

    public RunlaneSettings settings() {
        return settings;
    }

    public TaskRegistry tasks() {
        return tasks;
    }

    public RunlaneTemplate template() {
        return template;
    }

    public RunReads reads() {
        return reads;
    }

    public RunTransitions transitions() {
        return transitions;
    }
}

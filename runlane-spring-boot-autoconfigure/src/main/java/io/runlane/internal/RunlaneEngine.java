package io.runlane.internal;

import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.jdbc.AttemptOutcomes;
import io.runlane.internal.jdbc.ExpiredLeases;
import io.runlane.internal.jdbc.IdempotencyKeyResets;
import io.runlane.internal.jdbc.RunAdmissions;
import io.runlane.internal.jdbc.RunClaims;
import io.runlane.internal.jdbc.RunReads;
import io.runlane.internal.jdbc.RunTransitions;
import io.runlane.internal.jdbc.SqlTemplate;
import io.runlane.internal.maintenance.LeaseRescuer;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.trigger.DefaultIdempotencyKeyOperations;
import io.runlane.internal.trigger.DefaultRunOperations;
import io.runlane.internal.trigger.DefaultRunlaneTemplate;
import io.runlane.internal.trigger.PayloadCodec;
import io.runlane.internal.trigger.TriggerPlanner;
import io.runlane.internal.worker.AttemptListener;
import io.runlane.internal.worker.RetryPolicy;
import io.runlane.internal.worker.RunWorker;
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

    private final RunWorker worker;

    private final MaintenanceService maintenance;

    private final LeaseRescuer leaseRescuer;

    private final RunClaims claims;

    private final AttemptOutcomes outcomes;

    public RunlaneEngine(
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            RunlaneSettings settings,
            TaskRegistry tasks,
            PayloadCodec payloads) {
        this(
                dataSource,
                transactionManager,
                settings,
                ExecutionSettings.defaults(),
                tasks,
                payloads,
                AttemptListener.NONE);
    }

    public RunlaneEngine(
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            RunlaneSettings settings,
            ExecutionSettings execution,
            TaskRegistry tasks,
            PayloadCodec payloads,
            AttemptListener listener) {
        JdbcClient jdbc = JdbcClient.create(dataSource);
        TransactionTemplate transactions = new TransactionTemplate(transactionManager);
        SqlTemplate sql = new SqlTemplate(settings.schema());
        String environment = settings.environment();
        this.settings = settings;
        this.tasks = tasks;
        this.reads = new RunReads(jdbc, sql, environment);
        this.transitions = new RunTransitions(jdbc, sql, environment);
        RunOperations runs = new DefaultRunOperations(reads, transitions);
        IdempotencyKeyOperations keys =
                new DefaultIdempotencyKeyOperations(tasks, new IdempotencyKeyResets(jdbc, sql, environment));
        RunAdmissions admissions = new RunAdmissions(jdbc, transactions, reads, sql, environment);
        this.template =
                new DefaultRunlaneTemplate(tasks, new TriggerPlanner(settings, payloads), admissions, runs, keys);
        this.outcomes = new AttemptOutcomes(jdbc, sql);
        this.claims = new RunClaims(jdbc, transactions, sql, environment);
        this.worker =
                new RunWorker(dataSource, settings, execution, tasks, claims, outcomes, payloads, template, listener);
        this.leaseRescuer = new LeaseRescuer(
                new ExpiredLeases(jdbc, sql, environment),
                outcomes,
                tasks,
                new RetryPolicy(execution),
                execution.recoveryBatchSize());
        this.maintenance = new MaintenanceService(leaseRescuer, execution.recoveryInterval());
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

    /** The worker; not started until its lifecycle starts it. */
    public RunWorker worker() {
        return worker;
    }

    /** The maintenance jobs; not started until their lifecycle starts them. */
    public MaintenanceService maintenance() {
        return maintenance;
    }

    public LeaseRescuer leaseRescuer() {
        return leaseRescuer;
    }

    public RunClaims claims() {
        return claims;
    }

    public AttemptOutcomes outcomes() {
        return outcomes;
    }
}

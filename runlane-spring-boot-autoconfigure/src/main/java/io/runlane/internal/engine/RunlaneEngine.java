package io.runlane.internal.engine;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.kernel.AutoCommitDataSource;
import io.runlane.internal.kernel.CompositeEngineListener;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.LocalStarts;
import io.runlane.internal.kernel.PruningSettings;
import io.runlane.internal.kernel.ReadCommittedTransactions;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TraceContextCapture;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.maintenance.LeaseRescuer;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.maintenance.RunPruner;
import io.runlane.internal.operations.IdempotencyKeyResets;
import io.runlane.internal.query.RunListing;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.query.RunStatistics;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.RateLimitPolicy;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.result.ResultCodec;
import io.runlane.internal.result.RunEndings;
import io.runlane.internal.result.RunResults;
import io.runlane.internal.schedule.Schedules;
import io.runlane.internal.signal.SignalInbox;
import io.runlane.internal.signal.SignalMailbox;
import io.runlane.internal.signal.SignalPayloads;
import io.runlane.internal.step.DurableExecution;
import io.runlane.internal.step.StepStore;
import io.runlane.internal.trigger.RunAdmissions;
import io.runlane.internal.trigger.SingletonConflicts;
import io.runlane.internal.wait.MissedWakeUps;
import io.runlane.internal.wait.RunParking;
import io.runlane.internal.wait.SignalWakeUps;
import io.runlane.internal.worker.AttemptOutcomes;
import io.runlane.internal.worker.BatchCompletions;
import io.runlane.internal.worker.RunClaims;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wires the engine's parts for one {@link DataSource}. The auto-configuration exposes its parts as beans; tests and
 * benchmarks build several engines by hand, one per data source, to act as separate application instances.
 */
public final class RunlaneEngine implements AutoCloseable {

    private final RunlaneSettings settings;

    private final TaskRegistry tasks;

    private final RunReads reads;

    private final RunTransitions transitions;

    private final RunlaneTemplate template;

    private final RunWorker worker;

    private final MaintenanceService maintenance;

    private final LeaseRescuer leaseRescuer;

    private final RunClaims claims;

    private final RunStatistics statistics;

    private final PruningService pruning;

    private final AttemptOutcomes outcomes;

    private final BatchCompletions completions;

    private final RunEndings endings;

    private final StepStore steps;

    private final MissedWakeUps missedWakeUps;

    private final SignalMailbox signals;

    private final DurableExecution durable;

    private final DueRunNotifier notifier;

    private final Schedules schedules;

    /** Set by instrumentation before the application triggers; see {@link #setTraceContextCapture}. */
    private volatile TraceContextCapture traceContexts = TraceContextCapture.NONE;

    /**
     * A builder for an engine on {@code dataSource}, whose transactions {@code transactionManager} manages, for the
     * given tasks; every other part has its default until set.
     */
    public static Builder builder(
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            RunlaneSettings settings,
            TaskRegistry tasks,
            PayloadCodec payloads) {
        return new Builder(dataSource, transactionManager, settings, tasks, payloads);
    }

    private RunlaneEngine(Builder builder) {
        DataSource applicationDataSource = builder.dataSource;
        PlatformTransactionManager transactionManager = builder.transactionManager;
        RunlaneSettings settings = builder.settings;
        ExecutionSettings execution = builder.execution;
        PruningSettings pruningSettings = builder.pruning;
        ScheduleSettings scheduleSettings = builder.schedules;
        TaskRegistry tasks = builder.tasks;
        PayloadCodec payloads = builder.payloads;
        EngineListener userListener = builder.listener;
        long maxResultBytes = builder.maxResultBytes;
        DataSource dataSource = AutoCommitDataSource.of(applicationDataSource);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        TransactionTemplate transactions = new ReadCommittedTransactions(transactionManager, jdbc);
        // The engine's own loops, whose statements get a network timeout (S-MO-11); triggers, operator calls and
        // transactional steps, which run the application's code or wait for its transactions, keep the pool's.
        DataSource loopDataSource = AutoCommitDataSource.bounded(applicationDataSource, settings.networkTimeout());
        JdbcClient loopJdbc = JdbcClient.create(loopDataSource);
        TransactionTemplate loopTransactions = ReadCommittedTransactions.bounded(
                transactionManager, loopJdbc, applicationDataSource, settings.networkTimeout());
        SqlTemplate sql = new SqlTemplate(settings.schema());
        String environment = settings.environment();
        this.settings = settings;
        this.tasks = tasks;
        this.reads = new RunReads(jdbc, sql, environment);
        this.transitions = new RunTransitions(jdbc, sql, environment);
        this.statistics = new RunStatistics(jdbc, sql, environment);
        RunPruner pruner = new RunPruner(loopJdbc, sql, environment);
        DueRunNotifier notifier = new DueRunNotifier(loopDataSource, settings.schema());
        this.notifier = notifier;
        this.endings = new RunEndings(loopDataSource, sql, notifier);
        EngineListener listener = CompositeEngineListener.of(List.of(userListener, endings));
        ResultCodec codec = new ResultCodec(payloads.jsonMapper(), maxResultBytes);
        this.steps = new StepStore(jdbc, sql);
        SignalWakeUps signalWakeUps = new SignalWakeUps(loopDataSource, sql, notifier);
        LocalStarts localStarts = new LocalStarts();
        this.durable = new DurableExecution(
                new StepStore(loopJdbc, sql),
                reads,
                codec,
                new RunParking(loopJdbc, sql, notifier, signalWakeUps),
                new SignalInbox(loopJdbc, sql),
                transactions);
        this.signals = new SignalMailbox(jdbc, sql, environment, notifier, signalWakeUps);
        this.schedules = new Schedules(
                loopJdbc,
                sql,
                environment,
                loopTransactions,
                this::template,
                tasks,
                payloads,
                transitions,
                scheduleSettings,
                listener);
        this.template = TriggerEngine.template(
                settings,
                tasks,
                payloads,
                new RunAdmissions(
                        dataSource,
                        jdbc,
                        transactions,
                        reads,
                        sql,
                        environment,
                        new SingletonConflicts(jdbc, sql, environment, reads, transitions, signals),
                        localStarts),
                reads,
                new RunListing(jdbc, sql, environment),
                transitions,
                pruner,
                new IdempotencyKeyResets(jdbc, sql, environment),
                notifier,
                listener,
                new RunResults(reads, codec, endings),
                steps,
                schedules.operations(),
                signals,
                new SignalPayloads(payloads.jsonMapper()),
                () -> traceContexts.capture(),
                transactions);
        this.outcomes = new AttemptOutcomes(loopJdbc, sql);
        this.claims = new RunClaims(loopJdbc, loopTransactions, sql, environment);
        this.completions = new BatchCompletions(loopJdbc, sql);
        this.worker = new RunWorker(
                loopDataSource,
                settings,
                execution,
                tasks,
                claims,
                outcomes,
                completions,
                payloads,
                template,
                listener,
                notifier,
                loopTransactions,
                durable,
                localStarts);
        this.missedWakeUps = new MissedWakeUps(loopJdbc, sql, environment, notifier);
        this.maintenance = MaintenanceService.create(
                loopJdbc, sql, environment, outcomes, tasks, execution, missedWakeUps, listener);
        this.leaseRescuer = maintenance.rescuer();
        worker.recoverExpiredLeasesWith(leaseRescuer::rescueExpired);
        this.pruning = new PruningService(
                pruner,
                pruningSettings.retention(),
                pruningSettings.interval(),
                pruningSettings.batchSize(),
                pruningSettings.timeBudget(),
                listener,
                loopJdbc,
                sql,
                environment,
                longestRateLimitPeriod(tasks));
    }

    /** The longest period a declared task's rate limit has, whose expired creations pruning deletes (S-RT-5). */
    private static @Nullable Duration longestRateLimitPeriod(TaskRegistry tasks) {
        return tasks.all().stream()
                .map(TaskDefinition::rateLimit)
                .filter(java.util.Objects::nonNull)
                .map(RateLimitPolicy::period)
                .max(Duration::compareTo)
                .orElse(null);
    }

    /**
     * Stops the engine's own threads that no lifecycle stops (the notifier's sender, the run endings' sender and
     * listener, S-MO-4); Spring calls it when
     * the context closes. The worker and the maintenance jobs are lifecycle beans and stop before it.
     */
    @Override
    public void close() {
        schedules.firer().stop();
        worker.stop();
        notifier.stop();
        endings.stop();
    }

    /**
     * Where new runs get the trace context they store for their attempts (S-MO-9); {@link TraceContextCapture#NONE}
     * unless tracing is wired in, as Boot does when Micrometer observations are on.
     */
    public void setTraceContextCapture(TraceContextCapture traceContexts) {
        this.traceContexts = traceContexts;
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

    /** The schedules: operations, the firer (a lifecycle, not started until started) and declared schedules. */
    public Schedules schedules() {
        return schedules;
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

    /** Counts of active runs per queue, for the endpoint, health and gauges. */
    public RunStatistics statistics() {
        return statistics;
    }

    /** The automatic pruning job; not started until its lifecycle starts it. */
    public PruningService pruning() {
        return pruning;
    }

    public RunClaims claims() {
        return claims;
    }

    public BatchCompletions completions() {
        return completions;
    }

    public AttemptOutcomes outcomes() {
        return outcomes;
    }

    /** Wakes callers awaiting runs' ends (S-RS-2). */
    public RunEndings endings() {
        return endings;
    }

    /** Steps, waits and results of attempts (S-ST, S-RS). */
    public DurableExecution durable() {
        return durable;
    }

    public StepStore steps() {
        return steps;
    }

    /** The runs' signal mailboxes (S-SG). */
    public SignalMailbox signals() {
        return signals;
    }

    /** Maintenance's safety net for waits on other runs (S-RS-4). */
    public MissedWakeUps missedWakeUps() {
        return missedWakeUps;
    }

    /**
     * Collects an engine's parts; {@link #build()} wires them. Defaults: {@link ExecutionSettings#defaults()},
     * {@link PruningSettings#defaults()}, {@link ScheduleSettings#defaults()}, no listener, and results up to
     * {@link ResultCodec#DEFAULT_MAX_RESULT_BYTES}.
     */
    public static final class Builder {

        private final DataSource dataSource;

        private final PlatformTransactionManager transactionManager;

        private final RunlaneSettings settings;

        private final TaskRegistry tasks;

        private final PayloadCodec payloads;

        private ExecutionSettings execution = ExecutionSettings.defaults();

        private PruningSettings pruning = PruningSettings.defaults();

        private ScheduleSettings schedules = ScheduleSettings.defaults();

        private EngineListener listener = EngineListener.NONE;

        private long maxResultBytes = ResultCodec.DEFAULT_MAX_RESULT_BYTES;

        private Builder(
                DataSource dataSource,
                PlatformTransactionManager transactionManager,
                RunlaneSettings settings,
                TaskRegistry tasks,
                PayloadCodec payloads) {
            this.dataSource = dataSource;
            this.transactionManager = transactionManager;
            this.settings = settings;
            this.tasks = tasks;
            this.payloads = payloads;
        }

        public Builder execution(ExecutionSettings execution) {
            this.execution = execution;
            return this;
        }

        public Builder pruning(PruningSettings pruning) {
            this.pruning = pruning;
            return this;
        }

        public Builder schedules(ScheduleSettings schedules) {
            this.schedules = schedules;
            return this;
        }

        public Builder listener(EngineListener listener) {
            this.listener = listener;
            return this;
        }

        public Builder maxResultBytes(long maxResultBytes) {
            this.maxResultBytes = maxResultBytes;
            return this;
        }

        public RunlaneEngine build() {
            return new RunlaneEngine(this);
        }
    }
}

package io.runlane.autoconfigure.console;

import io.runlane.Page;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunEvent;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunSignal;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.query.RunActivity;
import io.runlane.internal.query.RunActivity.FinishedInterval;
import io.runlane.internal.query.RunActivity.WorkerLeases;
import io.runlane.internal.query.RunStatistics.QueueStatistics;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * What the console shows, read through the same paths as the {@code runlane} actuator endpoint: the engine's queue
 * statistics, this instance's worker, and {@link RunOperations} for runs (S-CO-1); plus {@link RunActivity} for the
 * throughput of the last hour and the workers holding leases, and {@link ConsoleHistory} for a run's events, attempts,
 * steps and signals a page at a time (S-CO-10). Nothing here writes.
 */
final class ConsoleReads {

    /** The throughput chart covers the last hour in five-minute intervals. */
    static final Duration THROUGHPUT_WINDOW = Duration.ofHours(1);

    static final Duration THROUGHPUT_INTERVAL = Duration.ofMinutes(5);

    private static final List<RunStatus> ACTIVE_STATUSES =
            Arrays.stream(RunStatus.values()).filter(RunStatus::isActive).toList();

    private final RunlaneEngine engine;

    private final RunActivity activity;

    private final ConsoleHistory history;

    private final ConsoleSettings settings;

    private final ConsoleSchedules schedules;

    private final @Nullable ExecutionSettings execution;

    private final @Nullable RunWorker worker;

    ConsoleReads(
            RunlaneEngine engine,
            RunActivity activity,
            ConsoleHistory history,
            ConsoleSettings settings,
            @Nullable ExecutionSettings execution,
            @Nullable RunWorker worker) {
        this.engine = engine;
        this.activity = activity;
        this.history = history;
        this.schedules = new ConsoleSchedules(engine, settings);
        this.settings = settings;
        this.execution = execution;
        this.worker = worker;
    }

    /** The environment, the access mode and the names the run filters offer. */
    ConsoleInfo info() {
        List<TaskView> tasks = engine.tasks().all().stream().map(TaskView::of).toList();
        List<String> queues = engine.settings().queues().stream().sorted().toList();
        List<String> statuses =
                Arrays.stream(RunStatus.values()).map(RunStatus::name).toList();
        List<String> sources =
                Arrays.stream(RunSource.values()).map(RunSource::name).toList();
        return new ConsoleInfo(engine.settings().environment(), settings.access(), tasks, queues, statuses, sources);
    }

    ConsoleSchedules schedules() {
        return schedules;
    }

    /** Queues, throughput of the last hour, this instance's worker and the schedules' state. */
    Overview overview() {
        List<QueueView> queues = engine
                .statistics()
                .byQueue(List.copyOf(engine.settings().queues()))
                .values()
                .stream()
                .map(statistics -> QueueView.of(statistics, concurrencyLimit(statistics.queue())))
                .toList();
        return new Overview(
                engine.settings().environment(),
                settings.access(),
                Instant.now(),
                queues,
                throughput(Instant.now()),
                describeWorker(),
                activity.leasesByWorker(),
                schedules.summary());
    }

    Page<Run> runs(RunQuery query) {
        return operations().list(query);
    }

    Optional<Run> run(UUID runId) {
        return operations().get(runId);
    }

    /** Whether the request's user sees the values runs carry (S-CO-13). */
    boolean valuesShown(ServerRequest request) {
        return settings.values().shown(request);
    }

    /** {@link #detail(Run)} with its values masked unless the request's user sees them (S-CO-13). */
    RunDetail detail(Run run, ServerRequest request) {
        return ConsoleValues.detail(detail(run), valuesShown(request));
    }

    /** A run with the newest page of each list of its history, or empty when there is none. */
    Optional<RunDetail> detail(UUID runId) {
        return operations().get(runId).map(this::detail);
    }

    /**
     * The run with the newest {@value ConsoleHistory#DEFAULT_LIMIT} of its attempts, events, steps and signals and
     * the size of each list; a run pruned meanwhile has empty lists.
     */
    RunDetail detail(Run run) {
        int limit = ConsoleHistory.DEFAULT_LIMIT;
        ConsoleHistory.Totals totals =
                history.totals(run.id()).orElseGet(() -> new ConsoleHistory.Totals(0, 0, 0, 0, null));
        return new RunDetail(
                run,
                engine.reads().failureStack(run),
                History.of(history.attempts(run.id(), null, limit), totals.attempts()),
                History.of(history.events(run.id(), null, limit), totals.events()),
                History.of(history.steps(run.id(), null, limit), totals.steps()),
                History.of(history.signals(run.id(), null, limit), totals.signals()),
                RunActions.of(run, settings.unrestricted()),
                DebounceWindow.of(run, totals.debounceFolds()));
    }

    /** The run's attempts after the cursor, newest first, or empty when there is no such run. */
    Optional<Page<RunAttempt>> attempts(UUID runId, @Nullable String cursor, int limit) {
        return run(runId).map(run -> history.attempts(runId, cursor, limit));
    }

    /** The run's events after the cursor, newest first, or empty when there is no such run. */
    Optional<Page<RunEvent>> events(UUID runId, @Nullable String cursor, int limit) {
        return run(runId).map(run -> history.events(runId, cursor, limit));
    }

    /** The run's steps after the cursor, newest completion first, or empty when there is no such run. */
    Optional<Page<ConsoleStep>> steps(UUID runId, @Nullable String cursor, int limit) {
        return run(runId).map(run -> history.steps(runId, cursor, limit));
    }

    /** The run's signals after the cursor, newest first, or empty when there is no such run. */
    Optional<Page<RunSignal>> signals(UUID runId, @Nullable String cursor, int limit) {
        return run(runId).map(run -> history.signals(runId, cursor, limit));
    }

    private RunOperations operations() {
        return engine.template().runs();
    }

    /**
     * Every interval of the window, oldest first, with zeros where no run finished, so that the chart's time axis
     * is regular.
     */
    private Throughput throughput(Instant now) {
        long intervalMillis = THROUGHPUT_INTERVAL.toMillis();
        Instant current = Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), intervalMillis) * intervalMillis);
        long count = THROUGHPUT_WINDOW.toMillis() / intervalMillis;
        Instant first = current.minus(THROUGHPUT_INTERVAL.multipliedBy(count - 1));
        Map<Instant, ThroughputInterval> intervals = new TreeMap<>();
        for (long i = 0; i < count; i++) {
            Instant start = first.plus(THROUGHPUT_INTERVAL.multipliedBy(i));
            intervals.put(start, new ThroughputInterval(start, 0, 0, 0));
        }
        for (FinishedInterval finished :
                activity.finishedSince(THROUGHPUT_WINDOW.plus(THROUGHPUT_INTERVAL), THROUGHPUT_INTERVAL)) {
            if (!finished.start().isBefore(first)) {
                intervals.put(finished.start(), ThroughputInterval.of(finished));
            }
        }
        return new Throughput(THROUGHPUT_INTERVAL.toMinutes(), List.copyOf(intervals.values()));
    }

    private @Nullable WorkerView describeWorker() {
        RunWorker current = worker;
        if (current == null) {
            return null;
        }
        Throwable failure = current.lastPollFailure();
        return new WorkerView(
                current.workerId(),
                current.isRunning(),
                current.inFlight(),
                (execution != null) ? execution.concurrency() : null,
                current.lastPoll(),
                (failure != null) ? String.valueOf(failure.getMessage()) : null);
    }

    private @Nullable Integer concurrencyLimit(String queue) {
        return (execution != null) ? execution.concurrencyLimits().get(queue) : null;
    }

    /** The header of every page; {@code sources} are the run sources the runs list filters by (S-CO-23). */
    record ConsoleInfo(
            String environment,
            String access,
            List<TaskView> tasks,
            List<String> queues,
            List<String> statuses,
            List<String> sources) {}

    /** A declared task. */
    record TaskView(String id, String queue, int maxAttempts) {

        static TaskView of(TaskDefinition task) {
            return new TaskView(task.id(), task.queue(), task.maxAttempts());
        }
    }

    /**
     * The overview page.
     *
     * @param worker this instance's worker, or {@code null} when it runs none
     * @param leases the workers of every instance holding leases of running attempts
     */
    record Overview(
            String environment,
            String access,
            Instant generatedAt,
            List<QueueView> queues,
            Throughput throughput,
            @Nullable WorkerView worker,
            List<WorkerLeases> leases,
            ConsoleSchedules.SchedulesSummary schedules) {}

    /**
     * A queue's active runs.
     *
     * @param oldestDueAgeMillis how long the oldest due run has waited, or {@code null} when none is due
     */
    record QueueView(
            String name,
            Map<RunStatus, Long> counts,
            long waiting,
            long due,
            @Nullable Long oldestDueAgeMillis,
            @Nullable Integer concurrencyLimit) {

        static QueueView of(QueueStatistics statistics, @Nullable Integer concurrencyLimit) {
            Map<RunStatus, Long> counts = new EnumMap<>(RunStatus.class);
            ACTIVE_STATUSES.forEach(
                    status -> counts.put(status, statistics.activeCounts().getOrDefault(status, 0L)));
            Duration oldest = statistics.oldestDueAge();
            return new QueueView(
                    statistics.queue(),
                    counts,
                    statistics.waiting(),
                    statistics.due(),
                    (oldest != null) ? oldest.toMillis() : null,
                    concurrencyLimit);
        }
    }

    /** Runs finished per interval. */
    record Throughput(long intervalMinutes, List<ThroughputInterval> intervals) {}

    /** Runs finished in one interval, per terminal status. */
    record ThroughputInterval(Instant start, long succeeded, long failed, long cancelled) {

        static ThroughputInterval of(FinishedInterval finished) {
            Map<RunStatus, Long> counts = finished.counts();
            return new ThroughputInterval(
                    finished.start(),
                    counts.getOrDefault(RunStatus.SUCCEEDED, 0L),
                    counts.getOrDefault(RunStatus.FAILED, 0L),
                    counts.getOrDefault(RunStatus.CANCELLED, 0L));
        }
    }

    /** This instance's worker; other instances are not known to it. */
    record WorkerView(
            String id,
            boolean running,
            int inFlight,
            @Nullable Integer concurrency,
            @Nullable Instant lastPoll,
            @Nullable String lastPollFailure) {}

    /**
     * A run with the newest page of each list of its history and the actions the console offers for it; its result
     * is {@code run.resultJson}.
     *
     * @param failureStack the stack trace stored with the run's failure (S-EX-35), {@code ******} unless the user
     *     sees values (S-CO-13), or {@code null} when its failure has none
     * @param steps its completed steps, latest completion first (S-ST-6), the engine's wait steps tagged (S-CO-11)
     * @param signals its mailbox, newest first, with consumption times (S-SG-5)
     * @param actions what the operator may do now; all false in read-only mode
     * @param debounce the debounce window while the run is a pending debounced run (S-DB-1), else {@code null}
     */
    record RunDetail(
            Run run,
            @Nullable String failureStack,
            History<RunAttempt> attempts,
            History<RunEvent> events,
            History<ConsoleStep> steps,
            History<RunSignal> signals,
            RunActions actions,
            @Nullable DebounceWindow debounce) {}

    /**
     * A pending debounced run's window (S-DB-1): its key, how many later triggers folded into it, and when it is due
     * to start.
     */
    record DebounceWindow(String key, int folds, @Nullable Instant startsAt) {

        static @Nullable DebounceWindow of(Run run, @Nullable Integer folds) {
            String key = run.debounceKey();
            return key == null || folds == null ? null : new DebounceWindow(key, folds, run.runAt());
        }
    }

    /**
     * The newest items of one list of a run's history (S-CO-10).
     *
     * @param total how many items the list has; at most {@value ConsoleHistory#COUNT_CAP} for steps and signals
     * @param totalCapped whether the list has more than {@code total} items, which were not counted
     * @param nextCursor the cursor of the next, older page, or {@code null} when {@code items} is the whole list
     */
    record History<T>(
            List<T> items,
            long total,
            boolean totalCapped,
            @Nullable String nextCursor) {

        static <T> History<T> of(Page<T> page, long counted) {
            boolean capped = counted > ConsoleHistory.COUNT_CAP;
            return new History<>(page.items(), capped ? ConsoleHistory.COUNT_CAP : counted, capped, page.nextCursor());
        }
    }

    /**
     * The actions the run's status allows, when the console is unrestricted (S-OP-2, S-IK-8, S-RV-5); {@code fork}
     * (S-RV-3) is offered for every finished run, from one of its recorded steps or after all of them.
     */
    record RunActions(boolean cancel, boolean retry, boolean rerun, boolean resetKey, boolean resume, boolean fork) {

        static RunActions of(Run run, boolean unrestricted) {
            if (!unrestricted) {
                return new RunActions(false, false, false, false, false, false);
            }
            boolean terminal = run.status().isTerminal();
            return new RunActions(
                    run.status().isActive() && run.status() != RunStatus.CANCELLATION_REQUESTED,
                    run.status() == RunStatus.FAILED,
                    terminal,
                    terminal && run.idempotencyKey() != null,
                    run.status() == RunStatus.FAILED || run.status() == RunStatus.CANCELLED,
                    terminal);
        }
    }
}

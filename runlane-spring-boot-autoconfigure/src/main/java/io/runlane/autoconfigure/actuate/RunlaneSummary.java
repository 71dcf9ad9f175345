package io.runlane.autoconfigure.actuate;

import io.runlane.RunStatus;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.MaintenanceDescriptor;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.PruningDescriptor;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.QueueDescriptor;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.RecoveryDescriptor;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.RunlaneDescriptor;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.TaskDescriptor;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint.WorkerDescriptor;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.query.RunStatistics.QueueStatistics;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The summary of {@link RunlaneEndpoint}: the application's tasks with configured defaults applied, the queues'
 * statistics, and the state of this instance's worker and maintenance jobs, each {@code null} when it runs none.
 */
final class RunlaneSummary {

    private static final List<RunStatus> ACTIVE_STATUSES =
            Arrays.stream(RunStatus.values()).filter(RunStatus::isActive).toList();

    private final RunlaneEngine engine;

    private final @Nullable ExecutionSettings execution;

    private final @Nullable RunWorker worker;

    private final @Nullable MaintenanceService recovery;

    private final @Nullable PruningService pruning;

    RunlaneSummary(
            RunlaneEngine engine,
            @Nullable ExecutionSettings execution,
            @Nullable RunWorker worker,
            @Nullable MaintenanceService recovery,
            @Nullable PruningService pruning) {
        this.engine = engine;
        this.execution = execution;
        this.worker = worker;
        this.recovery = recovery;
        this.pruning = pruning;
    }

    RunlaneDescriptor describe() {
        RunlaneSettings settings = engine.settings();
        List<TaskDescriptor> tasks = engine.tasks().all().stream()
                .map(task -> describeTask(task, settings))
                .toList();
        Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
        engine.statistics()
                .byQueue(List.copyOf(settings.queues()))
                .forEach((name, statistics) -> queues.put(name, describeQueue(statistics, concurrencyLimit(name))));
        return new RunlaneDescriptor(settings.environment(), tasks, queues, describeWorker(), describeMaintenance());
    }

    private static TaskDescriptor describeTask(TaskDefinition task, RunlaneSettings settings) {
        return new TaskDescriptor(
                task.id(),
                task.queue(),
                task.maxAttempts(),
                String.valueOf(
                        (task.idempotencyKeyTtl() != null)
                                ? task.idempotencyKeyTtl()
                                : settings.defaultIdempotencyKeyTtl()),
                task.rateLimit() == null
                        ? null
                        : new RunlaneEndpoint.RateLimitDescriptor(
                                task.rateLimit().limit(),
                                task.rateLimit().period().toString()),
                task.priority(),
                task.throttle() == null
                        ? null
                        : new RunlaneEndpoint.ThrottleDescriptor(
                                task.throttle().limit(),
                                task.throttle().period().toString()));
    }

    private static QueueDescriptor describeQueue(QueueStatistics statistics, @Nullable Integer concurrencyLimit) {
        Map<RunStatus, Long> counts = new LinkedHashMap<>();
        ACTIVE_STATUSES.forEach(
                status -> counts.put(status, statistics.activeCounts().getOrDefault(status, 0L)));
        Duration oldest = statistics.oldestDueAge();
        return new QueueDescriptor(
                counts,
                statistics.waiting(),
                statistics.due(),
                (oldest != null) ? oldest.toString() : null,
                concurrencyLimit);
    }

    private @Nullable WorkerDescriptor describeWorker() {
        RunWorker current = worker;
        if (current == null) {
            return null;
        }
        Throwable failure = current.lastPollFailure();
        return new WorkerDescriptor(
                current.workerId(),
                current.isRunning(),
                current.inFlight(),
                (execution != null) ? execution.concurrency() : null,
                current.lastPoll(),
                (failure != null) ? String.valueOf(failure.getMessage()) : null);
    }

    private MaintenanceDescriptor describeMaintenance() {
        MaintenanceService currentRecovery = recovery;
        PruningService currentPruning = pruning;
        return new MaintenanceDescriptor(
                (currentRecovery != null)
                        ? new RecoveryDescriptor(currentRecovery.isRunning(), currentRecovery.lastRecovery())
                        : null,
                (currentPruning != null)
                        ? new PruningDescriptor(
                                currentPruning.isRunning(), currentPruning.lastRun(), currentPruning.lastPruned())
                        : null);
    }

    private @Nullable Integer concurrencyLimit(String queue) {
        return (execution != null) ? execution.concurrencyLimits().get(queue) : null;
    }
}

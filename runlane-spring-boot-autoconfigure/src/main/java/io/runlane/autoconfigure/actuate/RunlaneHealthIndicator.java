package io.runlane.autoconfigure.actuate;

import io.runlane.internal.jdbc.RunStatistics;
import io.runlane.internal.jdbc.RunStatistics.QueueStatistics;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Runlane's health (S-MO-2). It is {@code DOWN} when Runlane's tables cannot be read (the database is unreachable or
 * the schema is missing), and, while the application is running, when this instance's worker or one of its
 * maintenance jobs has stopped or the worker's last poll failed. Details give the backlog (waiting and due runs),
 * the age of the oldest due run, and the worker's id and in-flight attempts.
 *
 * <p>A stopped job counts only while the application is running, because Spring stops lifecycle beans on shutdown
 * and does not start them before the context is refreshed. The statistics query counts active runs only, so it stays
 * cheap enough for frequent probes.
 */
public final class RunlaneHealthIndicator extends AbstractHealthIndicator {

    private final RunStatistics statistics;

    private final List<String> queues;

    private final @Nullable RunWorker worker;

    private final @Nullable MaintenanceService recovery;

    private final @Nullable PruningService pruning;

    private final BooleanSupplier applicationRunning;

    /**
     * Creates the indicator. The worker and the maintenance jobs are those of this application instance, or {@code
     * null} when it does not run them; {@code applicationRunning} tells whether they are expected to be running.
     */
    public RunlaneHealthIndicator(
            RunStatistics statistics,
            List<String> queues,
            @Nullable RunWorker worker,
            @Nullable MaintenanceService recovery,
            @Nullable PruningService pruning,
            BooleanSupplier applicationRunning) {
        super("Runlane health check failed");
        this.statistics = statistics;
        this.queues = List.copyOf(queues);
        this.worker = worker;
        this.recovery = recovery;
        this.pruning = pruning;
        this.applicationRunning = applicationRunning;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Map<String, QueueStatistics> byQueue = statistics.byQueue(queues);
        long waiting = 0;
        long due = 0;
        Duration oldestDueAge = null;
        for (QueueStatistics queue : byQueue.values()) {
            waiting += queue.waiting();
            due += queue.due();
            Duration age = queue.oldestDueAge();
            if (age != null && (oldestDueAge == null || age.compareTo(oldestDueAge) > 0)) {
                oldestDueAge = age;
            }
        }
        List<String> problems = new ArrayList<>();
        boolean expectRunning = applicationRunning.getAsBoolean();
        builder.withDetail("backlog", Map.of("waiting", waiting, "due", due));
        if (oldestDueAge != null) {
            builder.withDetail("oldestDueAge", oldestDueAge.toString());
        }
        RunWorker currentWorker = worker;
        if (currentWorker != null) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("id", currentWorker.workerId());
            details.put("running", currentWorker.isRunning());
            details.put("inFlight", currentWorker.inFlight());
            if (currentWorker.lastPoll() != null) {
                details.put("lastPoll", String.valueOf(currentWorker.lastPoll()));
            }
            builder.withDetail("worker", details);
            if (expectRunning && !currentWorker.isRunning()) {
                problems.add("the worker has stopped");
            }
            Throwable failure = currentWorker.lastPollFailure();
            if (failure != null) {
                problems.add("the worker's last poll failed: " + failure);
            }
        }
        if (recovery != null && expectRunning && !recovery.isRunning()) {
            problems.add("lease recovery has stopped");
        }
        if (pruning != null && expectRunning && !pruning.isRunning()) {
            problems.add("automatic pruning has stopped");
        }
        if (problems.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("problems", problems);
        }
    }
}

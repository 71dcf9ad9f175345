package io.runlane.autoconfigure.actuate;

import io.runlane.internal.jdbc.RunStatistics;
import io.runlane.internal.jdbc.RunStatistics.QueueStatistics;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.time.Instant;
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
 * the schema is missing); when this instance's worker's last poll failed, or its polling thread has not completed a
 * poll for {@code maxPollAge} (it polls at least once per poll interval, even when every slot is busy); and, while
 * the application is running, when the worker or one of the maintenance jobs has stopped; and when one of the
 * worker's threads is dead and not yet restarted (S-MO-4). Details give the backlog
 * (waiting and due runs), the age of the oldest due run, and the worker's id and in-flight attempts.
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

    private final Duration maxPollAge;

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
            Duration maxPollAge,
            BooleanSupplier applicationRunning) {
        super("Runlane health check failed");
        this.statistics = statistics;
        this.queues = List.copyOf(queues);
        this.worker = worker;
        this.recovery = recovery;
        this.pruning = pruning;
        this.maxPollAge = maxPollAge;
        this.applicationRunning = applicationRunning;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        describeBacklog(builder);
        boolean expectRunning = applicationRunning.getAsBoolean();
        List<String> problems = new ArrayList<>();
        RunWorker currentWorker = worker;
        if (currentWorker != null) {
            checkWorker(currentWorker, expectRunning, builder, problems);
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

    /** Reads the statistics, which fails the check when the database or the schema is unavailable. */
    private void describeBacklog(Health.Builder builder) {
        long waiting = 0;
        long due = 0;
        Duration oldestDueAge = null;
        for (QueueStatistics queue : statistics.byQueue(queues).values()) {
            waiting += queue.waiting();
            due += queue.due();
            Duration age = queue.oldestDueAge();
            if (age != null && (oldestDueAge == null || age.compareTo(oldestDueAge) > 0)) {
                oldestDueAge = age;
            }
        }
        builder.withDetail("backlog", Map.of("waiting", waiting, "due", due));
        if (oldestDueAge != null) {
            builder.withDetail("oldestDueAge", oldestDueAge.toString());
        }
    }

    private void checkWorker(RunWorker current, boolean expectRunning, Health.Builder builder, List<String> problems) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("id", current.workerId());
        details.put("running", current.isRunning());
        details.put("inFlight", current.inFlight());
        Instant lastPoll = current.lastPoll();
        if (lastPoll != null) {
            details.put("lastPoll", lastPoll.toString());
        }
        builder.withDetail("worker", details);
        if (expectRunning && !current.isRunning()) {
            problems.add("the worker has stopped");
        }
        if (current.isRunning()
                && lastPoll != null
                && lastPoll.isBefore(Instant.now().minus(maxPollAge))) {
            problems.add("the worker has not polled since " + lastPoll);
        }
        List<String> deadThreads = current.deadThreads();
        if (!deadThreads.isEmpty()) {
            problems.add("worker threads are dead: " + String.join(", ", deadThreads));
        }
        Throwable failure = current.lastPollFailure();
        if (failure != null) {
            problems.add("the worker's last poll failed: " + failure);
        }
    }
}

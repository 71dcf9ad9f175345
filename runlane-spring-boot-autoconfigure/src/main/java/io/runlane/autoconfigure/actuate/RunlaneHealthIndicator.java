package io.runlane.autoconfigure.actuate;

import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.query.RunStatistics;
import io.runlane.internal.query.RunStatistics.QueueStatistics;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runlane's health (S-MO-2). It is {@code DOWN} when Runlane's tables cannot be read (the database is unreachable or
 * the schema is missing); when this instance's worker's last poll failed, or its polling thread has not completed a
 * poll for {@code maxPollAge} (it polls at least once per poll interval, even when every slot is busy); and, while
 * the application is running, when the worker or one of the maintenance jobs has stopped; and when one of the
 * worker's threads is dead and not yet restarted (S-MO-4). Details give the backlog
 * (waiting and due runs), the age of the oldest due run, and the worker's id and in-flight attempts.
 *
 * <p>The statistics query runs on a thread of its own and the check waits for it at most {@code runlane.health.timeout}
 * (S-MO-5): during a database outage the pool would make it wait for a connection far longer than a probe does, so
 * the check answers {@code DOWN}, naming the time-out, instead of hanging. A query still running when the next check
 * comes is waited for again rather than started twice, so an outage holds at most one thread. Details also list
 * attempts of this worker running past their timeout or their cancellation grace (S-EX-21, S-CA-5), and schedules whose
 * next occurrence is overdue by more than {@value #OVERDUE_SCHEDULE_POLLS} schedule poll intervals (no instance is
 * firing them, S-SC-5); they do not make the instance {@code DOWN}.
 *
 * <p>A stopped job counts only while the application is running, because Spring stops lifecycle beans on shutdown
 * and does not start them before the context is refreshed. The statistics query counts active runs only, so it stays
 * cheap enough for frequent probes.
 */
public final class RunlaneHealthIndicator extends AbstractHealthIndicator {

    /** The default of {@code runlane.health.timeout}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private final RunStatistics statistics;

    private final List<String> queues;

    private final @Nullable RunWorker worker;

    private final @Nullable MaintenanceService recovery;

    private final @Nullable PruningService pruning;

    private final Duration maxPollAge;

    private final BooleanSupplier applicationRunning;

    private final Duration timeout;

    private final ThreadPoolExecutor queries;

    private final @Nullable Supplier<List<String>> overdueSchedules;

    /** How many schedule poll intervals a schedule may be overdue before health lists it. */
    public static final int OVERDUE_SCHEDULE_POLLS = 3;

    /** The statistics query last started; guarded by {@code this}. */
    private @Nullable CompletableFuture<Map<String, QueueStatistics>> pending;

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
        this(statistics, queues, worker, recovery, pruning, maxPollAge, applicationRunning, DEFAULT_TIMEOUT);
    }

    /** Creates the indicator; the check waits at most {@code timeout} for the database. */
    public RunlaneHealthIndicator(
            RunStatistics statistics,
            List<String> queues,
            @Nullable RunWorker worker,
            @Nullable MaintenanceService recovery,
            @Nullable PruningService pruning,
            Duration maxPollAge,
            BooleanSupplier applicationRunning,
            Duration timeout) {
        this(statistics, queues, worker, recovery, pruning, maxPollAge, applicationRunning, timeout, null);
    }

    /**
     * Creates the indicator; {@code overdueSchedules}, when given, lists the schedules overdue by more than {@value
     * #OVERDUE_SCHEDULE_POLLS} poll intervals.
     */
    public RunlaneHealthIndicator(
            RunStatistics statistics,
            List<String> queues,
            @Nullable RunWorker worker,
            @Nullable MaintenanceService recovery,
            @Nullable PruningService pruning,
            Duration maxPollAge,
            BooleanSupplier applicationRunning,
            Duration timeout,
            @Nullable Supplier<List<String>> overdueSchedules) {
        super("Runlane health check failed");
        this.overdueSchedules = overdueSchedules;
        this.timeout = timeout;
        CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-health-");
        threads.setDaemon(true);
        // One thread at most, ended when idle: an indicator never needs to be closed.
        this.queries = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
        this.queries.allowCoreThreadTimeOut(true);
        this.statistics = statistics;
        this.queues = List.copyOf(queues);
        this.worker = worker;
        this.recovery = recovery;
        this.pruning = pruning;
        this.maxPollAge = maxPollAge;
        this.applicationRunning = applicationRunning;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        describeBacklog(builder);
        describeOverdueSchedules(builder);
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
    private void describeBacklog(Health.Builder builder) throws Exception {
        long waiting = 0;
        long due = 0;
        Duration oldestDueAge = null;
        for (QueueStatistics queue : statisticsWithinTimeout().values()) {
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

    private void describeOverdueSchedules(Health.Builder builder) throws Exception {
        if (overdueSchedules == null) {
            return;
        }
        List<String> overdue;
        try {
            overdue = CompletableFuture.supplyAsync(overdueSchedules, queries)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            throw new TimeoutException("Runlane's database did not answer within the health time-out of " + timeout
                    + " (runlane.health.timeout)");
        } catch (ExecutionException ex) {
            throw ex.getCause() instanceof Exception cause ? cause : ex;
        }
        if (!overdue.isEmpty()) {
            builder.withDetail("overdueSchedules", overdue);
        }
    }

    private Map<String, QueueStatistics> statisticsWithinTimeout() throws Exception {
        CompletableFuture<Map<String, QueueStatistics>> query;
        synchronized (this) {
            if (pending == null || pending.isDone()) {
                pending = CompletableFuture.supplyAsync(() -> statistics.byQueue(queues), queries);
            }
            query = pending;
        }
        try {
            return query.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            throw new TimeoutException("Runlane's database did not answer within the health time-out of " + timeout
                    + " (runlane.health.timeout)");
        } catch (ExecutionException ex) {
            throw ex.getCause() instanceof Exception cause ? cause : ex;
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
        List<String> overdue = current.overdueAttempts();
        if (!overdue.isEmpty()) {
            details.put("overdueAttempts", overdue);
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

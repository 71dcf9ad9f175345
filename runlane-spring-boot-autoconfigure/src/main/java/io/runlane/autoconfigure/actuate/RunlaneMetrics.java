package io.runlane.autoconfigure.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.runlane.Run;
import io.runlane.TriggerOutcome;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.query.RunStatistics.QueueStatistics;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runlane's Micrometer meters (S-MO-3). As an {@link EngineListener} it counts triggers ({@code runlane.triggers},
 * tags {@code task}, {@code outcome}), triggers refused by a rate limit ({@code runlane.trigger.rate_limited}, tag
 * {@code task}) and attempts ({@code runlane.attempts}, tags {@code task}, {@code result}),
 * times attempts ({@code runlane.attempt.duration}) and the delay from a run being due to an attempt starting
 * ({@code runlane.trigger.start.delay}, tag {@code task}), and counts pruned runs ({@code runlane.runs.pruned}, tag
 * {@code trigger} = {@code automatic} or {@code operator}) and recovered leases ({@code runlane.leases.recovered}),
 * counts schedule occurrences fired and skipped ({@code runlane.schedule.fires}, {@code runlane.schedule.skips}, the
 * latter also tagged {@code reason} = {@code overlap}, {@code singleton} or {@code rate_limited}) and times how late
 * occurrences fired ({@code runlane.schedule.lag}), tags {@code schedule} and {@code task}.
 * As a {@link MeterBinder} it gauges each declared queue's waiting runs ({@code runlane.queue.depth}) and the age of
 * its oldest due run ({@code runlane.queue.oldest.due.age}), tag {@code queue}.
 *
 * <p>Tags are bounded by the declared tasks, queues and schedules: never run ids or keys. The gauges read one statistics query
 * for all queues and reuse its answer for {@code refreshInterval}, so scrapes of many gauges or many registries cost
 * at most one query per interval; a failed query makes the gauges report no value until the next one succeeds.
 */
public final class RunlaneMetrics implements EngineListener, MeterBinder {

    private static final Log logger = LogFactory.getLog(RunlaneMetrics.class);

    private final MeterProvider<Counter> triggers;

    private final MeterProvider<Counter> debounced;
    private final MeterProvider<Counter> rateLimited;

    private final MeterProvider<Counter> attempts;

    private final MeterProvider<Timer> attemptDuration;

    private final MeterProvider<Timer> startDelay;

    private final MeterProvider<Counter> pruned;

    private final Counter leasesRecovered;

    private final MeterProvider<Counter> throttled;

    private final MeterProvider<Counter> scheduleFires;

    private final MeterProvider<Counter> scheduleSkips;

    private final MeterProvider<Timer> scheduleLag;

    private final List<String> queues;

    private final QueueStatisticsCache statistics;

    /**
     * Creates the meters.
     *
     * @param registry where the engine's counters and timers are registered
     * @param queues the declared queues, one pair of gauges each
     * @param statistics reads every queue's statistics (one query)
     * @param refreshInterval how long a statistics answer is reused
     */
    public RunlaneMetrics(
            MeterRegistry registry,
            Collection<String> queues,
            Supplier<Map<String, QueueStatistics>> statistics,
            Duration refreshInterval) {
        this.triggers = Counter.builder("runlane.triggers")
                .description("Triggers answered, by task and outcome")
                .withRegistry(registry);
        this.debounced = Counter.builder("runlane.trigger.debounced")
                .description("Triggers folded into a pending debounced run, by task")
                .withRegistry(registry);
        this.rateLimited = Counter.builder("runlane.trigger.rate_limited")
                .description("Triggers refused by their task's rate limit, by task")
                .withRegistry(registry);
        this.attempts = Counter.builder("runlane.attempts")
                .description("Attempts ended, by task and the run's status after them")
                .withRegistry(registry);
        this.attemptDuration = Timer.builder("runlane.attempt.duration")
                .description("Time attempts took, by task and the run's status after them")
                .withRegistry(registry);
        this.startDelay = Timer.builder("runlane.trigger.start.delay")
                .description("Time from a run being due to an attempt of it starting")
                .withRegistry(registry);
        this.pruned = Counter.builder("runlane.runs.pruned")
                .description("Finished runs pruned, by the automatic job or by an operator")
                .baseUnit("runs")
                .withRegistry(registry);
        this.leasesRecovered = Counter.builder("runlane.leases.recovered")
                .description("Running runs whose expired lease maintenance recovered")
                .baseUnit("runs")
                .register(registry);
        this.throttled = Counter.builder("runlane.claim.throttled")
                .description("Throttle keys a claim found at their limit (S-TH-2), by task: their due runs wait")
                .baseUnit("keys")
                .withRegistry(registry);
        this.scheduleFires = Counter.builder("runlane.schedule.fires")
                .description("Schedule occurrences that created (or found) their run, by schedule and task")
                .withRegistry(registry);
        this.scheduleSkips = Counter.builder("runlane.schedule.skips")
                .description("Schedule occurrences skipped, by reason: overlap (the previous run was active),"
                        + " singleton (another run held the singleton key), rate_limited (the task's rate limit)")
                .withRegistry(registry);
        this.scheduleLag = Timer.builder("runlane.schedule.lag")
                .description("Time from a schedule occurrence to its firing")
                .withRegistry(registry);
        this.queues = queues.stream().sorted().toList();
        this.statistics = new QueueStatisticsCache(statistics, refreshInterval);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String queue : queues) {
            Gauge.builder("runlane.queue.depth", statistics, cache -> cache.waiting(queue))
                    .description("Runs waiting for a worker, due or not")
                    .baseUnit("runs")
                    .tag("queue", queue)
                    .register(registry);
            TimeGauge.builder(
                            "runlane.queue.oldest.due.age",
                            statistics,
                            TimeUnit.MILLISECONDS,
                            cache -> cache.oldestDueAgeMillis(queue))
                    .description("How long the oldest due run has waited; 0 when none is due")
                    .tag("queue", queue)
                    .register(registry);
        }
    }

    @Override
    public void triggered(String taskId, TriggerOutcome outcome) {
        triggers.withTags("task", taskId, "outcome", outcome.name().toLowerCase(Locale.ROOT))
                .increment();
        if (outcome == TriggerOutcome.DEBOUNCED) {
            debounced.withTags("task", taskId).increment();
        }
    }

    @Override
    public void rateLimited(String taskId) {
        rateLimited.withTags("task", taskId).increment();
    }

    @Override
    public void attemptStarted(ClaimedRun claimed) {
        Run run = claimed.run();
        if (run.runAt() != null) {
            Duration delay = Duration.between(run.runAt(), run.updatedAt());
            startDelay.withTags("task", run.taskId()).record(delay.isNegative() ? Duration.ZERO : delay);
        }
    }

    @Override
    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
        String task = claimed.run().taskId();
        attempts.withTags("task", task, "result", result).increment();
        attemptDuration.withTags("task", task, "result", result).record(duration);
    }

    @Override
    public void claimThrottled(String taskId, int keys) {
        throttled.withTags("task", taskId).increment(keys);
    }

    @Override
    public void leasesRecovered(int runs) {
        leasesRecovered.increment(runs);
    }

    @Override
    public void runsPruned(long runs, boolean automatic) {
        pruned.withTags("trigger", automatic ? "automatic" : "operator").increment(runs);
    }

    @Override
    public void scheduleFired(String scheduleId, String taskId, Duration lag) {
        scheduleFires.withTags("schedule", scheduleId, "task", taskId).increment();
        scheduleLag.withTags("schedule", scheduleId, "task", taskId).record(lag.isNegative() ? Duration.ZERO : lag);
    }

    @Override
    public void scheduleSkipped(String scheduleId, String taskId, ScheduleSkipReason reason) {
        scheduleSkips
                .withTags("schedule", scheduleId, "task", taskId, "reason", reason.tag())
                .increment();
    }

    /** The last statistics answer, refreshed on demand at most once per interval. */
    private static final class QueueStatisticsCache {

        private final Supplier<Map<String, QueueStatistics>> source;

        private final long refreshNanos;

        private volatile @Nullable Snapshot snapshot;

        QueueStatisticsCache(Supplier<Map<String, QueueStatistics>> source, Duration refreshInterval) {
            this.source = source;
            this.refreshNanos = refreshInterval.toNanos();
        }

        double waiting(String queue) {
            Map<String, QueueStatistics> current = current();
            if (current == null) {
                return Double.NaN;
            }
            QueueStatistics statistics = current.get(queue);
            return (statistics != null) ? statistics.waiting() : 0;
        }

        double oldestDueAgeMillis(String queue) {
            Map<String, QueueStatistics> current = current();
            if (current == null) {
                return Double.NaN;
            }
            QueueStatistics statistics = current.get(queue);
            Duration age = (statistics != null) ? statistics.oldestDueAge() : null;
            return (age != null) ? age.toMillis() : 0;
        }

        /** The statistics, or {@code null} when the last query failed. */
        private @Nullable Map<String, QueueStatistics> current() {
            Snapshot current = snapshot;
            if (current != null && System.nanoTime() - current.takenAt() < refreshNanos) {
                return current.byQueue();
            }
            synchronized (this) {
                current = snapshot;
                if (current == null || System.nanoTime() - current.takenAt() >= refreshNanos) {
                    current = new Snapshot(query(), System.nanoTime());
                    snapshot = current;
                }
                return current.byQueue();
            }
        }

        private @Nullable Map<String, QueueStatistics> query() {
            try {
                return source.get();
            } catch (RuntimeException ex) {
                logger.debug("Reading Runlane's queue statistics failed; gauges report no value", ex);
                return null;
            }
        }

        private record Snapshot(@Nullable Map<String, QueueStatistics> byQueue, long takenAt) {}
    }
}

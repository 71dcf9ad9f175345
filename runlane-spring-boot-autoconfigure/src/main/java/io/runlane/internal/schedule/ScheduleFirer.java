package io.runlane.internal.schedule;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.OverlapPolicy;
import io.runlane.RateLimitExceededException;
import io.runlane.RunStatus;
import io.runlane.RunlaneException;
import io.runlane.RunlaneTemplate;
import io.runlane.SingletonConflictException;
import io.runlane.SingletonConflictPolicy;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.EngineListener.ScheduleSkipReason;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schedule.ScheduleStore.DueSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fires due schedules on this instance; every instance runs one, and the database decides who fires what (S-SC-2).
 *
 * <ol>
 *   <li>In one transaction, lock one due schedule of a task this application has ({@code FOR UPDATE SKIP LOCKED}):
 *       another instance firing it at the same moment skips it instead of waiting.
 *   <li>Plan its occurrences from the database's {@code now} ({@link Occurrences}: catch-up window, misfire
 *       threshold, catch-up policy).
 *   <li>For each occurrence, apply the overlap policy against the schedule's last run (S-SC-3) and trigger the
 *       task through the ordinary trigger path, which joins this transaction, with the idempotency key {@code
 *       schedule.<id>.<occurrence epoch millis>}: even a second firer that somehow got the same occurrence would get
 *       the same run back. An occurrence that another run's singleton key or the task's rate limit refuses is
 *       skipped (S-SC-10): it creates no run, counts in the schedule's skips, and the schedule moves on.
 *   <li>Advance {@code next_fire_at} and record the last fire, last run and skips, and commit: the runs and the
 *       schedule's progress become visible together, or not at all.
 *   <li>Repeat until nothing is due, then sleep until the earliest known next fire time or the poll interval,
 *       whichever is sooner. A schedule whose firing failed is left out for the rest of the pass and retried on the
 *       next one.
 * </ol>
 */
public final class ScheduleFirer implements SmartLifecycle {

    /** The actor recorded on a run cancelled by {@link OverlapPolicy#CANCEL_OTHER}. */
    static final String ACTOR = "runlane.schedule";

    /** At most this many occurrences of one schedule are fired in one transaction (catch-up {@code ALL}). */
    static final int MAX_FIRES_PER_TRANSACTION = 100;

    /** The shortest sleep between passes, so that a due schedule another instance holds does not make us spin. */
    private static final long MIN_DELAY_MS = 25;

    /** How long {@link #stop()} waits for a pass in progress: longer than an engine statement's network timeout. */
    static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private static final Log logger = LogFactory.getLog(ScheduleFirer.class);

    private final ScheduleStore store;

    private final TransactionTemplate transactions;

    private final Supplier<RunlaneTemplate> template;

    private final TaskRegistry tasks;

    private final PayloadCodec payloads;

    private final RunTransitions transitions;

    private final ScheduleSettings settings;

    private final EngineListener listener;

    private @Nullable ScheduledExecutorService executor;

    private @Nullable ScheduledFuture<?> pending;

    /** Whether a pass is running; guarded by {@code this}. */
    private boolean passing;

    /** Whether a wake-up came during the running pass, which then runs again at once; guarded by {@code this}. */
    private boolean wakeRequested;

    ScheduleFirer(
            ScheduleStore store,
            TransactionTemplate transactions,
            Supplier<RunlaneTemplate> template,
            TaskRegistry tasks,
            PayloadCodec payloads,
            RunTransitions transitions,
            ScheduleSettings settings,
            EngineListener listener) {
        this.store = store;
        this.transactions = transactions;
        this.template = template;
        this.tasks = tasks;
        this.payloads = payloads;
        this.transitions = transitions;
        this.settings = settings;
        this.listener = listener;
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-schedules-");
        threads.setDaemon(true);
        executor = Executors.newSingleThreadScheduledExecutor(threads);
        pending = executor.schedule(this::tick, 0, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops firing and waits, up to {@link #STOP_WAIT}, for a pass in progress to end, so that a context closing
     * after a failed start-up closes its pool under no statement of the firer. The wait holds no lock: the pass may
     * still schedule its successor, which the stopped executor refuses.
     */
    @Override
    public void stop() {
        ScheduledExecutorService stopping;
        synchronized (this) {
            stopping = executor;
            if (stopping == null) {
                return;
            }
            stopping.shutdownNow();
            executor = null;
            pending = null;
        }
        try {
            stopping.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    /**
     * Looks for due schedules at once, for example after a schedule was created, changed or resumed here. A pass that
     * is running may have looked before the change, so it is followed by another at once; otherwise the waiting pass
     * is brought forward. Either way one chain of passes remains.
     */
    public synchronized void wake() {
        if (executor == null) {
            return;
        }
        if (passing) {
            wakeRequested = true;
        } else if (pending != null && pending.cancel(false)) {
            pending = executor.schedule(this::tick, 0, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Fires every schedule that is due now, one transaction per schedule, and returns how many were handled. Safe to
     * call on any number of instances at once.
     */
    public int fireDue() {
        return fireDue(new HashSet<>());
    }

    private int fireDue(Set<String> failed) {
        Set<String> taskIds = taskIds();
        if (taskIds.isEmpty()) {
            return 0;
        }
        int handled = 0;
        while (!Thread.currentThread().isInterrupted()) {
            List<Runnable> reports = new ArrayList<>();
            String[] current = new String[1];
            Boolean fired;
            try {
                fired = transactions.execute(status -> fireOne(taskIds, failed, current, reports));
            } catch (RuntimeException ex) {
                if (current[0] == null) {
                    throw ex;
                }
                logger.warn("Runlane could not fire schedule '" + current[0] + "'; retrying at the next poll: " + ex);
                logger.debug("Runlane could not fire schedule '" + current[0] + "'", ex);
                failed.add(current[0]);
                continue;
            }
            if (!Boolean.TRUE.equals(fired)) {
                return handled;
            }
            reports.forEach(Runnable::run);
            handled++;
        }
        return handled;
    }

    private boolean fireOne(Set<String> taskIds, Set<String> failed, String[] current, List<Runnable> reports) {
        List<DueSchedule> due = store.claimDue(taskIds, failed, 1);
        if (due.isEmpty()) {
            return false;
        }
        StoredSchedule schedule = due.get(0).schedule();
        Instant now = due.get(0).now();
        current[0] = schedule.id();
        Occurrences plan = Occurrences.plan(
                schedule.recurrence(),
                schedule.nextFireAt(),
                now,
                settings.catchUpWindow(),
                settings.misfireThreshold(),
                schedule.catchUp(),
                MAX_FIRES_PER_TRANSACTION);
        TaskDefinition task = tasks.require(schedule.taskId());
        UUID lastRunId = schedule.lastRunId();
        RunStatus lastStatus = schedule.lastRunStatus();
        boolean lastActive = lastStatus != null && lastStatus.isActive();
        Instant lastFire = null;
        UUID newLastRun = null;
        int skipped = 0;
        int rateLimited = 0;
        RateLimitExceededException lastRefusal = null;
        for (Instant occurrence : plan.fire()) {
            lastFire = occurrence;
            if (lastActive && schedule.overlap() == OverlapPolicy.SKIP) {
                skipped++;
                reports.add(
                        () -> listener.scheduleSkipped(schedule.id(), schedule.taskId(), ScheduleSkipReason.OVERLAP));
                continue;
            }
            try {
                TriggerResult result = template.get()
                        .trigger(
                                task.id(),
                                payloads.fromJson(task, schedule.payloadJson()),
                                options(schedule, occurrence));
                if (result.created()) {
                    store.recordRun(schedule.id(), result.runId());
                }
                if (schedule.overlap() == OverlapPolicy.CANCEL_OTHER && result.created() && lastRunId != null) {
                    supersede(schedule, occurrence, lastRunId, result.runId(), reports);
                }
                lastRunId = result.runId();
                newLastRun = lastRunId;
                lastActive = result.run().status().isActive();
                Duration lag = Duration.between(occurrence, now);
                reports.add(() -> listener.scheduleFired(schedule.id(), schedule.taskId(), lag));
            } catch (SingletonConflictException ex) {
                skipped++;
                reports.add(
                        () -> listener.scheduleSkipped(schedule.id(), schedule.taskId(), ScheduleSkipReason.SINGLETON));
            } catch (RateLimitExceededException ex) {
                skipped++;
                rateLimited++;
                lastRefusal = ex;
                reports.add(() ->
                        listener.scheduleSkipped(schedule.id(), schedule.taskId(), ScheduleSkipReason.RATE_LIMITED));
            } catch (RunlaneException ex) {
                logger.warn(
                        "Runlane schedule '" + schedule.id() + "' could not trigger its occurrence " + occurrence
                                + "; the occurrence is dropped",
                        ex);
            }
        }
        if (lastRefusal != null) {
            reports.add(rateLimitedReport(schedule, rateLimited, lastRefusal));
        }
        store.advance(schedule.id(), plan.next(), lastFire, newLastRun, skipped);
        return true;
    }

    /**
     * S-SC-10: one line per schedule and firing transaction, written after it commits, for the occurrences the task's
     * rate limit refused: they are skipped like a singleton conflict, and the schedule moves on to its next fire.
     */
    private static Runnable rateLimitedReport(StoredSchedule schedule, int occurrences, RateLimitExceededException ex) {
        String key = ex.rateLimitKey() == null ? "" : " (rate-limit key '" + ex.rateLimitKey() + "')";
        String message = "Runlane schedule '" + schedule.id() + "' skipped " + occurrences + " occurrence"
                + (occurrences == 1 ? "" : "s") + ": task '" + schedule.taskId() + "'" + key
                + " is at its rate limit; it has room again at " + ex.retryAfter() + " (S-SC-10, "
                + Guarantees.link("S-SC-10") + ")";
        return () -> logger.info(message);
    }

    /**
     * {@code CANCEL_OTHER} (S-SC-6): the new occurrence's run supersedes the schedule's previous run. The trigger
     * itself already superseded the holder of the task's singleton key, if it has one ({@link #options}); this cancels
     * the previous run when that did not (a waiting one at once, a running one is asked to stop) and makes the new run
     * wait until no attempt of it, or of the run it was itself waiting for, may still execute (S-CP-3).
     */
    private void supersede(
            StoredSchedule schedule, Instant occurrence, UUID previous, UUID successor, List<Runnable> reports) {
        transitions
                .supersede(
                        previous,
                        ACTOR,
                        "superseded by " + successor + ", occurrence " + occurrence + " of schedule '" + schedule.id()
                                + "' (S-SC-6)")
                .filter(run -> run.status().isTerminal())
                .ifPresent(run -> reports.add(() -> listener.runEnded(run.id(), run.status())));
        transitions.awaitPredecessor(successor, previous, ACTOR);
    }

    /**
     * The occurrence's idempotency key (S-SC-2), retained as long as the catch-up window (at least a minute): an
     * occurrence older than the window is never fired, so no later firing can need the key. Under {@code
     * CANCEL_OTHER} the occurrence supersedes the holder of the task's singleton key whatever the task's own policy
     * (S-SC-6, S-CP-3): the previous run still holds the key while it stops.
     */
    private TriggerOptions options(StoredSchedule schedule, Instant occurrence) {
        Duration window = settings.catchUpWindow();
        Duration retention = window.compareTo(Duration.ofMinutes(1)) < 0 ? Duration.ofMinutes(1) : window;
        return TriggerOptions.builder()
                .idempotencyKey(occurrenceKey(schedule.id(), occurrence))
                .idempotencyKeyTtl(IdempotencyKeyTtl.of(retention))
                .onSingletonConflict(
                        schedule.overlap() == OverlapPolicy.CANCEL_OTHER ? SingletonConflictPolicy.SUPERSEDE : null)
                .build();
    }

    static String occurrenceKey(String scheduleId, Instant occurrence) {
        return "schedule." + scheduleId + "." + occurrence.toEpochMilli();
    }

    private Set<String> taskIds() {
        Set<String> taskIds = new HashSet<>();
        tasks.all().forEach(task -> taskIds.add(task.id()));
        return taskIds;
    }

    private void tick() {
        synchronized (this) {
            passing = true;
            wakeRequested = false;
        }
        long delay = settings.pollInterval().toMillis();
        try {
            Set<String> failed = new HashSet<>();
            fireDue(failed);
            Set<String> taskIds = taskIds();
            if (failed.isEmpty() && !taskIds.isEmpty()) {
                delay = store.nextDueInMillis(taskIds)
                        .map(untilDue -> Math.max(
                                MIN_DELAY_MS,
                                Math.min(untilDue, settings.pollInterval().toMillis())))
                        .orElse(delay);
            }
        } catch (Throwable ex) {
            // one line, no stack trace: the firer retries at every poll, an outage would flood the log (issue 26)
            logger.warn("Runlane schedule firing failed; retrying at the next poll: " + ex);
            logger.debug("Runlane schedule firing failed", ex);
        }
        synchronized (this) {
            passing = false;
            if (executor != null && !executor.isShutdown()) {
                pending = executor.schedule(this::tick, wakeRequested ? 0 : delay, TimeUnit.MILLISECONDS);
            }
        }
    }
}

package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.EngineListener;
import io.runlane.internal.ExecutionSettings;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.jdbc.AttemptOutcomes;
import io.runlane.internal.jdbc.BatchCompletions;
import io.runlane.internal.jdbc.ClaimedRun;
import io.runlane.internal.jdbc.RunClaims;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.step.DurableExecution;
import io.runlane.internal.trigger.PayloadCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims due runs and executes them, as many at once as {@code runlane.worker.concurrency} allows.
 *
 * <p>One polling thread claims runs in batches of at most as many as there are free slots (S-EX-1) and hands each
 * to a bounded pool of daemon threads. A handler that returns frees its slot at once and leaves its completion to
 * the {@link CompletionWriter}, which records many in one statement (S-EX-15); a failure or release is recorded
 * by its own thread in one transaction with the claim of the slot's next run. After a claim that filled every free
 * slot the poller waits up to 2 ms for every slot to be free, so that short handlers are claimed several per
 * statement; otherwise it waits for the next jittered poll interval, a wake-up from {@link WakeUpListener} (a run
 * was triggered), or a slot freed by a finished attempt. A separate scheduler thread sends heartbeats that extend
 * the leases of every running attempt and tell attempts about cancellation (S-EX-2, S-CA-2), independently of
 * handler threads, so a CPU-bound handler keeps its lease.
 *
 * <p>Stopping (S-EX-8) stops claiming, waits up to the shutdown timeout for running attempts (their heartbeats go
 * on meanwhile), writes the completions still waiting, then stops heartbeats. Attempts still running after that are never interrupted; their leases
 * expire and recovery retries them, so no run is lost.
 */
public final class RunWorker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RunWorker.class);

    private final String workerId;

    private final DataSource dataSource;

    private final RunlaneSettings settings;

    private final ExecutionSettings execution;

    private final TaskRegistry tasks;

    private final RunClaims claims;

    private final AttemptRunner attempts;

    private final CompletionWriter completionWriter;

    private final RunlaneTemplate template;

    private final EngineListener listener;

    private final DueRunNotifier notifier;

    private final List<String> taskIds;

    private final List<String> unlimitedQueues;

    private final Map<UUID, AttemptContext> inFlight = new ConcurrentHashMap<>();

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition wakeUp = lock.newCondition();

    private boolean signalled;

    private volatile boolean running;

    private volatile @Nullable Instant lastPoll;

    private volatile @Nullable Throwable lastPollFailure;

    private @Nullable Semaphore slots;

    private @Nullable Thread poller;

    private @Nullable ExecutorService executor;

    private @Nullable ScheduledExecutorService heartbeats;

    private @Nullable WakeUpListener wakeUpListener;

    private @Nullable Thread listenerThread;

    private static final AtomicInteger WORKERS = new AtomicInteger();

    /** How long a claim waits for more slots to free up after one that filled every free slot. */
    private static final Duration CLAIM_COALESCING = Duration.ofMillis(2);

    public RunWorker(
            DataSource dataSource,
            RunlaneSettings settings,
            ExecutionSettings execution,
            TaskRegistry tasks,
            RunClaims claims,
            AttemptOutcomes outcomes,
            BatchCompletions completions,
            PayloadCodec payloads,
            RunlaneTemplate template,
            EngineListener listener,
            DueRunNotifier notifier,
            TransactionTemplate transactions,
            DurableExecution durable) {
        this.workerId = "worker-" + WORKERS.incrementAndGet() + "-" + UUID.randomUUID();
        this.dataSource = dataSource;
        this.settings = settings;
        this.execution = execution;
        this.tasks = tasks;
        this.claims = claims;
        this.template = template;
        this.listener = listener;
        this.notifier = notifier;
        this.taskIds = tasks.all().stream().map(TaskDefinition::id).toList();
        this.unlimitedQueues = consumedQueues().stream()
                .filter(queue -> !execution.concurrencyLimits().containsKey(queue))
                .toList();
        this.completionWriter = new CompletionWriter(completions, workerId, listener);
        this.attempts = new AttemptRunner(
                tasks,
                payloads,
                outcomes,
                new RetryPolicy(execution),
                new FailureDescriber(execution.maxFailureMessageLength()),
                listener,
                transactions,
                completionWriter,
                durable);
    }

    /** This worker's identity in leases and events; unique per start of an application instance. */
    public String workerId() {
        return workerId;
    }

    /** Attempts running now. */
    public int inFlight() {
        return inFlight.size();
    }

    /** When the polling thread last claimed successfully, if ever. */
    public @Nullable Instant lastPoll() {
        return lastPoll;
    }

    /** The last polling failure, cleared by the next successful poll. */
    public @Nullable Throwable lastPollFailure() {
        return lastPollFailure;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (running) {
                return;
            }
            running = true;
            slots = new Semaphore(execution.concurrency());
            executor = Executors.newFixedThreadPool(execution.concurrency(), daemonThreads("runlane-attempt-"));
            heartbeats = Executors.newSingleThreadScheduledExecutor(daemonThreads("runlane-heartbeat-"));
            long heartbeatMillis = execution.heartbeatInterval().toMillis();
            completionWriter.start(daemonThreads("runlane-completions-"));
            heartbeats.scheduleWithFixedDelay(this::heartbeat, heartbeatMillis, heartbeatMillis, TimeUnit.MILLISECONDS);
            wakeUpListener = new WakeUpListener(dataSource, settings.schema(), this::wake);
            listenerThread = daemonThreads("runlane-listener-").newThread(wakeUpListener);
            listenerThread.start();
            poller = daemonThreads("runlane-poller-").newThread(this::pollUntilStopped);
            poller.start();
            notifier.setLocalWakeUp(this::wake);
        } finally {
            lock.unlock();
        }
        logger.info("Runlane worker " + workerId + " started with " + execution.concurrency() + " slots on queues "
                + consumedQueues());
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        notifier.setLocalWakeUp(null);
        wake();
        join(poller);
        wakeUpListener.stop();
        executor.shutdown();
        try {
            if (!executor.awaitTermination(execution.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                logger.warn(inFlight.size() + " attempt(s) still running after the shutdown timeout of "
                        + execution.shutdownTimeout() + "; their leases will expire and recovery will retry them");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        completionWriter.stop(execution.shutdownTimeout());
        heartbeats.shutdownNow();
        join(listenerThread);
        logger.info("Runlane worker " + workerId + " stopped");
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Wakes the polling thread: a run may be due. */
    public void wake() {
        lock.lock();
        try {
            signalled = true;
            wakeUp.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void pollUntilStopped() {
        while (running) {
            boolean filledEverySlot = false;
            try {
                filledEverySlot = pollOnce();
                lastPoll = Instant.now();
                lastPollFailure = null;
            } catch (Throwable ex) {
                // Any failure, errors included, must not end the polling thread: health reports it instead.
                lastPollFailure = ex;
                logger.warn("Claiming runs failed; retrying after the poll interval", ex);
            }
            if (filledEverySlot) {
                awaitFreeSlots();
            } else {
                awaitWakeUp(jittered(execution.pollInterval()));
            }
        }
    }

    /**
     * After a claim that filled every free slot, more runs are probably due: waits until every slot is free again,
     * or at most {@link #CLAIM_COALESCING}, so that with short handlers one claim statement fills all the slots
     * instead of one or two each. A free slot is filled within that time however long the others stay busy.
     */
    private void awaitFreeSlots() {
        awaitUntil(() -> slots.availablePermits() >= execution.concurrency(), CLAIM_COALESCING);
    }

    /** Claims into free slots; returns whether every free slot was filled, so more due runs may be waiting. */
    private boolean pollOnce() {
        int free = slots.availablePermits();
        if (free == 0) {
            return false;
        }
        List<ClaimedRun> claimed =
                new ArrayList<>(claims.claimDue(workerId, unlimitedQueues, taskIds, free, execution.leaseDuration()));
        for (String queue : consumedQueues()) {
            Integer limit = execution.concurrencyLimits().get(queue);
            if (limit != null && claimed.size() < free) {
                claimed.addAll(claims.claimDueWithinLimit(
                        workerId, queue, limit, taskIds, free - claimed.size(), execution.leaseDuration()));
            }
        }
        for (ClaimedRun run : claimed) {
            slots.acquireUninterruptibly();
            AttemptContext context = started(run);
            executor.execute(() -> execute(context));
        }
        return claimed.size() == free;
    }

    private AttemptContext started(ClaimedRun run) {
        AttemptContext context = new AttemptContext(run, template);
        inFlight.put(run.run().id(), context);
        listener.attemptStarted(run);
        return context;
    }

    /**
     * Runs attempts on one slot: the claimed one, then each run claimed together with the previous outcome, until
     * none is due; then the slot goes back to the polling thread.
     */
    private void execute(AttemptContext first) {
        AttemptContext context = first;
        try {
            while (context != null) {
                ClaimedRun next = null;
                try {
                    next = attempts.run(context, workerId, this::claimFollowUp);
                } catch (RuntimeException ex) {
                    logger.error(
                            "Recording the outcome of run " + context.runId() + " failed; recovery will retry it", ex);
                } finally {
                    inFlight.remove(context.runId(), context);
                }
                context = next == null ? null : started(next);
            }
        } finally {
            slots.release();
            wake();
        }
    }

    /** Claims one more due run of an unlimited queue for a slot that just finished, while the worker runs. */
    private @Nullable ClaimedRun claimFollowUp() {
        if (!running || unlimitedQueues.isEmpty()) {
            return null;
        }
        List<ClaimedRun> next = claims.claimDue(workerId, unlimitedQueues, taskIds, 1, execution.leaseDuration());
        return next.isEmpty() ? null : next.get(0);
    }

    /** Extends the leases of running attempts and of completions waiting to be written, and nothing else. */
    private void heartbeat() {
        Set<UUID> holding = new HashSet<>(inFlight.keySet());
        holding.addAll(completionWriter.waitingRunIds());
        if (holding.isEmpty()) {
            return;
        }
        try {
            Map<UUID, RunClaims.HeldRun> held = claims.heartbeat(workerId, holding, execution.leaseDuration());
            for (AttemptContext context : inFlight.values()) {
                RunClaims.HeldRun run = held.get(context.runId());
                if (run == null || run.fencingToken() != context.claimed().fencingToken()) {
                    if (!context.leaseLost()) {
                        logger.warn("Run " + context.runId() + " attempt " + context.attempt()
                                + " lost its lease; its outcome will be refused");
                    }
                    context.markLeaseLost();
                } else if (run.status() == RunStatus.CANCELLATION_REQUESTED) {
                    context.markCancellationRequested();
                }
            }
        } catch (RuntimeException ex) {
            logger.warn("Heartbeat failed; leases will be extended at the next one", ex);
        }
    }

    private List<String> consumedQueues() {
        return settings.queues().stream()
                .filter(queue ->
                        execution.queues().isEmpty() || execution.queues().contains(queue))
                .sorted()
                .toList();
    }

    private void awaitWakeUp(Duration timeout) {
        awaitUntil(() -> signalled, timeout);
    }

    /** Waits for wake-ups until {@code done} holds (checked under the lock), the timeout passes or the worker stops. */
    private void awaitUntil(BooleanSupplier done, Duration timeout) {
        lock.lock();
        try {
            long nanos = timeout.toNanos();
            while (running && !done.getAsBoolean() && nanos > 0) {
                nanos = wakeUp.awaitNanos(nanos);
            }
            signalled = false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    private static Duration jittered(Duration interval) {
        double factor = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
        return Duration.ofNanos((long) (interval.toNanos() * factor));
    }

    private static CustomizableThreadFactory daemonThreads(String prefix) {
        CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
        factory.setDaemon(true);
        return factory;
    }

    private static void join(@Nullable Thread thread) {
        if (thread == null) {
            return;
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}

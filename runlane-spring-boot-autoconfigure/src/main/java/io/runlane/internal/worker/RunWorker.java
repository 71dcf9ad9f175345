package io.runlane.internal.worker;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.DatabaseOutage;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
 * <p>Free slots are shared between queues by a {@link QueueRotation} (S-QC-5). A run claimed is always either
 * executed or handed back without spending budget (S-EX-17), even when another claim of the same poll fails or the
 * worker stops meanwhile.
 *
 * <p>Every thread is supervised (S-MO-4): loop bodies catch everything, each heartbeat restarts a dead poller,
 * listener or completion writer, the poller reschedules heartbeats that ended, and {@link #deadThreads()} names what
 * is dead for the health check.
 *
 * <p>Stopping (S-EX-8) stops claiming, waits up to the shutdown timeout for running attempts (their heartbeats go
 * on meanwhile), writes the completions still waiting, then stops heartbeats. Attempts still running after that are
 * never interrupted; their leases expire and recovery retries them, so no run is lost.
 */
public final class RunWorker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RunWorker.class);

    private final String workerId;

    private final RunlaneSettings settings;

    private final ExecutionSettings execution;

    private final RunClaims claims;

    private final AttemptRunner attempts;

    private final CompletionWriter completionWriter;

    private final OutcomeRetries outcomeRetries = new OutcomeRetries();

    private final AttemptTimeouts timeouts;

    private final RunlaneTemplate template;

    private final EngineListener listener;

    private final DueRunNotifier notifier;

    private final QueueRotation rotation;

    private final WorkerThreads threads;

    private final Map<UUID, AttemptContext> inFlight = new ConcurrentHashMap<>();

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition wakeUp = lock.newCondition();

    private boolean signalled;

    private volatile boolean running;

    private volatile @Nullable Instant lastPoll;

    private volatile @Nullable Throwable lastPollFailure;

    /** Failed polls in a row: one warning per outage, a backoff, one line when it recovers. */
    private final DatabaseOutage pollOutage;

    private @Nullable Semaphore slots;

    private @Nullable ExecutorService executor;

    /** Runs handlers when set (Boot's executor builders); otherwise the worker keeps a pool of its own. */
    private volatile @Nullable Executor handlerExecutor;

    private volatile boolean autoStartup = true;

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
        this.settings = settings;
        this.execution = execution;
        this.pollOutage = new DatabaseOutage(logger, "Claiming runs", execution.pollInterval());
        this.claims = claims;
        this.template = template;
        this.listener = listener;
        this.notifier = notifier;
        this.rotation = new QueueRotation(
                claims,
                workerId,
                consumedQueues(),
                tasks.all().stream().map(TaskDefinition::id).toList(),
                execution);
        this.completionWriter = new CompletionWriter(completions, workerId, listener, outcomeRetries);
        RetryPolicy retries = new RetryPolicy(execution);
        FailureDescriber failures = new FailureDescriber(execution.maxFailureMessageLength());
        this.timeouts = new AttemptTimeouts(tasks, execution, outcomes, retries, failures, listener);
        Heartbeats heartbeat = new Heartbeats(
                claims,
                workerId,
                execution.leaseDuration(),
                inFlight::values,
                completionWriter::waitingRunIds,
                listener);
        this.threads = new WorkerThreads(
                workerId,
                this::pollUntilStopped,
                () -> {
                    // S-EX-21: attempts past their timeout end before the leases of the others are extended.
                    timeouts.enforce(inFlight.values(), workerId);
                    heartbeat.beat();
                },
                execution.heartbeatInterval(),
                () -> new WakeUpListener(dataSource, settings.schema(), this::wake),
                completionWriter);
        this.attempts = new AttemptRunner(
                tasks,
                payloads,
                outcomes,
                retries,
                failures,
                listener,
                transactions,
                completionWriter,
                outcomeRetries,
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

    /** Attempts running past their timeout or their cancellation grace (S-EX-21, S-CA-5), described for health. */
    public List<String> overdueAttempts() {
        return timeouts.overdue(inFlight.values());
    }

    /** When the polling thread last claimed successfully, if ever. */
    public @Nullable Instant lastPoll() {
        return lastPoll;
    }

    /** The last polling failure, cleared by the next successful poll. */
    public @Nullable Throwable lastPollFailure() {
        return lastPollFailure;
    }

    /** Polls that failed since the last one that succeeded. */
    public long pollFailuresInARow() {
        return pollOutage.failuresInARow();
    }

    /**
     * The engine threads of a running worker that are dead now (S-MO-4): its poller, listener, completion writer or
     * heartbeats. Supervision restarts them at the next heartbeat or poll; until then the worker is unhealthy.
     */
    public List<String> deadThreads() {
        return threads.dead();
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
            executor = handlerExecutor == null
                    ? Executors.newFixedThreadPool(
                            execution.concurrency(), WorkerThreads.daemonThreads("runlane-attempt-"))
                    : null;
            threads.start();
            notifier.setLocalWakeUp(this::wake);
        } finally {
            lock.unlock();
        }
        logger.info("Runlane worker " + workerId + " started with " + execution.concurrency() + " slots on queues "
                + consumedQueues());
    }

    @Override
    public void stop() {
        lock.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
        } finally {
            lock.unlock();
        }
        notifier.setLocalWakeUp(null);
        wake();
        threads.stopPolling();
        if (executor != null) {
            executor.shutdown();
        }
        try {
            // every slot free again: each running handler has returned (a slot is held until then, S-EX-21)
            if (slots.tryAcquire(
                    execution.concurrency(), execution.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                slots.release(execution.concurrency());
            } else {
                logger.warn(inFlight.size() + " attempt(s) still running after the shutdown timeout of "
                        + execution.shutdownTimeout() + "; their leases will expire and recovery will retry them");
                outcomeRetries.giveUp();
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        completionWriter.stop(execution.shutdownTimeout());
        threads.stopHeartbeats();
        logger.info("Runlane worker " + workerId + " stopped");
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Runs handlers on this executor from the next start instead of a pool of the worker's own (Boot's
     * {@code SimpleAsyncTaskExecutorBuilder}: virtual threads, the application's {@code TaskDecorator}). The worker's
     * slots still bound how many run at once.
     */
    public void setHandlerExecutor(@Nullable Executor handlerExecutor) {
        this.handlerExecutor = handlerExecutor;
    }

    /** Wraps each handler call (a Micrometer observation, say); direct by default. */
    public void setHandlerInvocation(HandlerInvocation invocation) {
        attempts.setInvocation(invocation);
    }

    /** Whether the context starts the worker when it refreshes; Boot starts it on {@code ApplicationReadyEvent}. */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
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
            @Nullable Duration backoff = null;
            try {
                threads.superviseHeartbeats();
                int free = slots.availablePermits();
                QueueRotation.Poll poll = rotation.claim(free, this::dispatch);
                filledEverySlot = free > 0 && poll.claimed() == free;
                lastPollFailure = poll.failure();
                if (poll.failure() == null) {
                    lastPoll = Instant.now();
                    pollOutage.succeeded();
                } else {
                    backoff = pollOutage.failed(poll.failure());
                }
            } catch (Throwable ex) {
                // Any failure, errors included, must not end the polling thread: health reports it instead.
                lastPollFailure = ex;
                backoff = pollOutage.failed(ex);
            }
            if (backoff != null) {
                awaitWakeUp(backoff);
            } else if (filledEverySlot) {
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

    /**
     * Starts a run the poll claimed on a free slot, or hands it back when the worker is stopping: every run claimed
     * is executed or handed back, whatever else fails (S-EX-17). Never throws.
     */
    private void dispatch(ClaimedRun run) {
        if (!running) {
            handBack(run, "the worker is stopping");
            return;
        }
        slots.acquireUninterruptibly();
        AttemptContext context = new AttemptContext(run, template);
        inFlight.put(run.run().id(), context);
        try {
            Executor handlers = handlerExecutor;
            (handlers != null ? handlers : executor).execute(() -> execute(context));
        } catch (Throwable ex) {
            inFlight.remove(run.run().id(), context);
            slots.release();
            handBack(run, ex instanceof RejectedExecutionException ? "the worker is stopping" : "not started: " + ex);
        }
    }

    private void handBack(ClaimedRun run, String reason) {
        try {
            claims.handBack(run, workerId, reason);
        } catch (Throwable ex) {
            logger.warn(
                    "Could not hand back run " + run.run().id() + " (" + reason + "); its lease will expire and"
                            + " recovery will retry it",
                    ex);
        }
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
                started(context);
                try {
                    next = attempts.run(context, workerId, this::claimFollowUp);
                } catch (Throwable ex) {
                    logger.error(
                            "Recording the outcome of run " + context.runId() + " failed; recovery will retry it", ex);
                } finally {
                    inFlight.remove(context.runId(), context);
                }
                if (next != null) {
                    context = new AttemptContext(next, template);
                    inFlight.put(next.run().id(), context);
                } else {
                    context = null;
                }
            }
        } finally {
            slots.release();
            wake();
        }
    }

    private void started(AttemptContext context) {
        try {
            listener.attemptStarted(context.claimed());
        } catch (Throwable ex) {
            logger.warn("Engine listener failed on the start of run " + context.runId(), ex);
        }
    }

    /** Claims one more due run for a slot that just finished, while the worker runs (S-QC-5). */
    private @Nullable ClaimedRun claimFollowUp() {
        return running ? rotation.claimFollowUp() : null;
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
}

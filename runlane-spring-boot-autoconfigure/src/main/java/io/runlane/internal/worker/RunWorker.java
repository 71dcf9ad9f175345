package io.runlane.internal.worker;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.DatabaseOutage;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.step.DurableExecution;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
 * to a bounded pool of daemon threads. While attempts end faster than a claim takes ({@link ClaimPace}), a claim
 * also takes up to one run per slot ahead, which waits for the next slot to free up ({@link WorkerSlots},
 * S-EX-29): with short handlers claim round trips, not slots, bound the throughput. A handler that returns frees
 * its slot at once and leaves its completion to the {@link CompletionWriter}, which records many in one statement
 * (S-EX-15); a failure or release is recorded by its own thread in one transaction with the claim of the slot's
 * next run. After a claim that took all it asked for the poller waits up to 2 ms for every slot to be free, so that
 * short handlers are claimed many per statement; otherwise it waits for the next jittered poll interval, a wake-up
 * from {@link WakeUpListener} (a run was triggered), or a slot freed by a finished attempt. A separate scheduler
 * thread sends heartbeats that extend the leases of every running attempt, of the runs waiting for a slot and of
 * the completions waiting to be written, and tell attempts about cancellation (S-EX-2, S-CA-2), independently of
 * handler threads, so a CPU-bound handler keeps its lease.
 *
 * <p>Free slots are shared between queues by a {@link QueueRotation} (S-QC-5). A run claimed is always either
 * executed or handed back without spending budget (S-EX-17), even when another claim of the same poll fails or the
 * worker stops meanwhile. Right before a handler starts, on its slot's thread, the worker checks that enough of the
 * claim's lease is left ({@link LeaseMargin}, S-EX-30): a claim whose answer arrived late, or a run that waited too
 * long for a slot, is handed back instead, so that a lease that expired meanwhile never lets two executions overlap.
 *
 * <p>Every thread is supervised (S-MO-4): loop bodies catch everything, each heartbeat restarts a dead poller,
 * listener or completion writer, the poller reschedules heartbeats that ended, and {@link #deadThreads()} names what
 * is dead for the health check.
 *
 * <p>Stopping (S-EX-8) stops claiming, hands back the runs waiting for a slot (S-EX-17), waits up to the shutdown
 * timeout for running attempts (their heartbeats go on meanwhile), writes the completions still waiting, then stops
 * heartbeats. Attempts still running after that are never interrupted; their leases expire and recovery retries
 * them, so no run is lost.
 */
public final class RunWorker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RunWorker.class);

    private final String workerId;

    private final RunlaneSettings settings;

    private final ExecutionSettings execution;

    private final RunClaims claims;

    private final Heartbeats heartbeats;

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

    private final ClaimPace pace = new ClaimPace();

    /** How much of its lease a claimed run needs left for its handler to start (S-EX-30). */
    private final LeaseMargin margin;

    private @Nullable WorkerSlots slots;

    private @Nullable ExecutorService executor;

    /** Runs handlers when set (Boot's executor builders); otherwise the worker keeps a pool of its own. */
    private volatile @Nullable Executor handlerExecutor;

    private volatile boolean autoStartup = true;

    private static final AtomicInteger WORKERS = new AtomicInteger();

    /** How long a claim waits for more slots to free up after one that took all it asked for. */
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
        this.margin = new LeaseMargin(execution.leaseDuration(), execution.heartbeatInterval());
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
        RefusedOutcomes refusals = new RefusedOutcomes(claims);
        this.completionWriter = new CompletionWriter(completions, workerId, listener, outcomeRetries, refusals);
        RetryPolicy retries = new RetryPolicy(execution);
        FailureDescriber failures = new FailureDescriber(execution.maxFailureMessageLength());
        this.timeouts = new AttemptTimeouts(tasks, execution, outcomes, retries, failures, listener);
        Heartbeats heartbeat = new Heartbeats(claims, workerId, margin, inFlight::values, this::heldRunIds, listener);
        this.heartbeats = heartbeat;
        this.threads = new WorkerThreads(
                workerId,
                this::pollUntilStopped,
                () -> {
                    // S-EX-21: attempts past their timeout end before the leases of the others are extended.
                    timeouts.enforce(inFlight.values(), workerId);
                    heartbeat.beat();
                },
                execution.heartbeatInterval(),
                () -> new WakeUpListener(dataSource, settings.schema(), notifier.origin(), this::wake),
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
                refusals,
                durable);
    }

    /**
     * What recovers expired leases at once (maintenance's lease rescue), for the runs a worker finds leased to it but
     * not in its hands after an outage (S-EX-32).
     */
    public void recoverExpiredLeasesWith(Runnable recoverNow) {
        heartbeats.recoverWith(recoverNow);
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
            slots = new WorkerSlots(execution.concurrency(), this::start);
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
        slots.close().forEach(run -> handBack(run, "the worker is stopping"));
        if (executor != null) {
            executor.shutdown();
        }
        try {
            // every slot free again: each running handler has returned (a slot is held until then, S-EX-21)
            if (!slots.awaitAllFree(execution.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
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
            boolean tookAll = false;
            boolean ahead = false;
            @Nullable Duration backoff = null;
            try {
                threads.superviseHeartbeats();
                handBackLongWaiting();
                ahead = pace.claimAhead();
                int capacity = slots.capacity(ahead);
                long began = System.nanoTime();
                QueueRotation.Poll poll = rotation.claim(capacity, this::accept);
                if (capacity > 0) {
                    pace.claimTook(System.nanoTime() - began);
                }
                tookAll = capacity > 0 && poll.claimed() == capacity;
                lastPollFailure = poll.failure();
                if (poll.failure() == null) {
                    lastPoll = Instant.now();
                    boolean afterOutage = pollOutage.failuresInARow() > 0;
                    pollOutage.succeeded();
                    if (afterOutage) {
                        heartbeats.reconcile();
                    }
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
            } else if (tookAll) {
                awaitFullCapacity(ahead);
            } else {
                awaitWakeUp(jittered(execution.pollInterval()));
            }
        }
    }

    /**
     * After a claim that took all it asked for, more runs are probably due: waits until every slot is free and no
     * run waits for one, or at most {@link #CLAIM_COALESCING}, so that with short handlers one claim statement fills
     * all the slots instead of one or two each. A free slot is filled within that time however long the others stay
     * busy.
     */
    private void awaitFullCapacity(boolean ahead) {
        int full = slots.fullCapacity(ahead);
        awaitUntil(() -> slots.capacity(ahead) >= full, CLAIM_COALESCING);
    }

    /**
     * Runs claimed ahead wait for a slot about one claim's round trip; one that waited a whole poll interval (every
     * slot ran into long handlers) is handed back, so that another worker can run it (S-EX-17). The slots took at
     * least that long, which the pace learns, so the worker stops claiming ahead until attempts are short again.
     */
    private void handBackLongWaiting() {
        long interval = execution.pollInterval().toNanos();
        List<ClaimedRun> late = slots.takeWaitingSince(System.nanoTime() - interval);
        if (!late.isEmpty()) {
            pace.attemptTook(interval);
            late.forEach(run -> handBack(run, "no slot freed up in time"));
        }
    }

    /**
     * Starts a run the poll claimed on a free slot or keeps it for the next slot to free up, or hands it back when
     * the worker is stopping: every run claimed is executed or handed back, whatever else fails (S-EX-17).
     */
    private void accept(ClaimedRun run) {
        if (!running || !slots.accept(run)) {
            handBack(run, "the worker is stopping");
        }
    }

    /** Starts a run on a slot acquired for it; hands the run back and frees the slot if it cannot. Never throws. */
    private void start(ClaimedRun run) {
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
     * Runs attempts on one slot: the claimed one, then each run claimed together with the previous outcome or
     * claimed ahead for a slot, until none is left; then the slot is free again.
     */
    private void execute(AttemptContext first) {
        AttemptContext context = first;
        try {
            while (context != null) {
                ClaimedRun next = null;
                if (margin.startable(context.claimed())) {
                    next = runAttempt(context);
                } else {
                    inFlight.remove(context.runId(), context);
                    handBackLate(context.claimed());
                }
                if (next == null && running) {
                    next = slots.next();
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

    /** Runs one attempt on this slot; returns the run claimed with its outcome for the slot, if any. */
    private @Nullable ClaimedRun runAttempt(AttemptContext context) {
        started(context);
        long began = System.nanoTime();
        try {
            return attempts.run(context, workerId, this::claimFollowUp);
        } catch (Throwable ex) {
            logger.error("Recording the outcome of run " + context.runId() + " failed; recovery will retry it", ex);
            return null;
        } finally {
            inFlight.remove(context.runId(), context);
            pace.attemptTook(System.nanoTime() - began);
        }
    }

    /**
     * S-EX-30: the claim's answer came back, or a slot freed up, too late to leave its handler enough of the lease;
     * the lease may even have expired and the run be held by another worker by now. The handler does not start, and
     * the run is handed back (S-EX-17), fenced by the claim's token, so that it is claimable at once if nobody took it
     * over meanwhile; a run recovered or claimed again meanwhile stays as it is.
     */
    private void handBackLate(ClaimedRun run) {
        Duration since = margin.sinceClaimSent(run);
        logger.warn("Run " + run.run().id() + " was claimed " + since.toMillis() + " ms before its handler could start,"
                + " leaving less than " + margin.margin().toMillis() + " ms of its "
                + execution.leaseDuration().toMillis()
                + " ms lease; it is handed back instead (S-EX-30)");
        handBack(
                run,
                "its claim was sent " + since.toMillis() + " ms before the handler could start, leaving less than "
                        + margin.margin().toMillis() + " ms of the lease (S-EX-30)");
    }

    private void started(AttemptContext context) {
        try {
            listener.attemptStarted(context.claimed());
        } catch (Throwable ex) {
            logger.warn("Engine listener failed on the start of run " + context.runId(), ex);
        }
    }

    /**
     * Claims one more due run for a slot that just finished, while the worker runs (S-QC-5), unless runs claimed
     * ahead are waiting for a slot: the slot takes one of those instead.
     */
    private @Nullable ClaimedRun claimFollowUp() {
        return running && slots.waiting() == 0 ? rotation.claimFollowUp() : null;
    }

    /** The runs whose leases heartbeats extend besides the running attempts': waiting completions and slots. */
    private Set<UUID> heldRunIds() {
        Set<UUID> held = new HashSet<>(completionWriter.waitingRunIds());
        WorkerSlots current = slots;
        if (current != null) {
            held.addAll(current.waitingRunIds());
        }
        return held;
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

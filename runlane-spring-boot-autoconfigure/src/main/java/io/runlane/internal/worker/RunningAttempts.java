package io.runlane.internal.worker;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the runs a worker claimed on its slots, each slot on a thread of a bounded pool of daemon threads, or of the
 * handler executor when one is set.
 *
 * <p>A handler that returns frees its slot at once and leaves its completion to the {@link CompletionWriter}, which
 * records many in one statement (S-EX-15); a failure or release is recorded by its own thread in one transaction with
 * the claim of the slot's next run ({@link QueueRotation#claimFollowUp}, S-QC-5). A slot then runs that run, or one
 * claimed ahead and waiting for a slot ({@link WorkerSlots}, S-EX-29), until none is left.
 *
 * <p>A run claimed is always either executed or handed back without spending budget (S-EX-17), even when the worker
 * stops meanwhile or its slot's thread cannot start. Right before a handler starts, on its slot's thread, the slot
 * checks that enough of the claim's lease is left ({@link LeaseMargin}, S-EX-30): a claim whose answer arrived late,
 * or a run that waited too long for a slot, is handed back instead, so that a lease that expired meanwhile never lets
 * two executions overlap.
 */
final class RunningAttempts {

    /** Logs as the worker: its runs' hand-backs and failures are the worker's to report. */
    private static final Log logger = LogFactory.getLog(RunWorker.class);

    private final String workerId;

    private final WorkerState state;

    private final RunClaims claims;

    private final AttemptRunner attempts;

    private final QueueRotation rotation;

    private final ClaimPace pace;

    /** How much of its lease a claimed run needs left for its handler to start (S-EX-30). */
    private final LeaseMargin margin;

    private final Duration leaseDuration;

    private final RunlaneTemplate template;

    private final EngineListener listener;

    /**
     * The attempts in hand, by identity, not by run id: a claim of a run whose answer arrived late (S-EX-30) may reach
     * this worker while a later attempt of the same run, claimed after the first lease expired, runs here; keyed by run
     * id, the late one replaced the running one and, when it was handed back, took the run out of the heartbeats, so
     * the running attempt lost its lease and the run was executed again beside it.
     */
    private final Set<AttemptContext> inFlight = ConcurrentHashMap.newKeySet();

    private @Nullable WorkerSlots slots;

    private @Nullable ExecutorService executor;

    /** Runs handlers when set (Boot's executor builders); otherwise the worker keeps a pool of its own. */
    private volatile @Nullable Executor handlerExecutor;

    RunningAttempts(
            String workerId,
            WorkerState state,
            RunClaims claims,
            AttemptRunner attempts,
            QueueRotation rotation,
            ClaimPace pace,
            LeaseMargin margin,
            Duration leaseDuration,
            RunlaneTemplate template,
            EngineListener listener) {
        this.workerId = workerId;
        this.state = state;
        this.claims = claims;
        this.attempts = attempts;
        this.rotation = rotation;
        this.pace = pace;
        this.margin = margin;
        this.leaseDuration = leaseDuration;
        this.template = template;
        this.listener = listener;
    }

    void setHandlerExecutor(@Nullable Executor handlerExecutor) {
        this.handlerExecutor = handlerExecutor;
    }

    void setInvocation(HandlerInvocation invocation) {
        attempts.setInvocation(invocation);
    }

    /** Opens {@code concurrency} free slots, and a pool of as many threads unless a handler executor is set. */
    void open(int concurrency) {
        slots = new WorkerSlots(concurrency, this::start);
        executor = handlerExecutor == null
                ? Executors.newFixedThreadPool(concurrency, WorkerThreads.daemonThreads("runlane-attempt-"))
                : null;
    }

    /** The slots opened by the last start; the poller claims for them while the worker runs. */
    WorkerSlots slots() {
        return slots;
    }

    /** The runs claimed ahead and waiting for a slot, whose leases heartbeats extend; none before the first start. */
    Set<UUID> waitingRunIds() {
        WorkerSlots current = slots;
        return current == null ? Set.of() : current.waitingRunIds();
    }

    /** The attempts running now. */
    Collection<AttemptContext> inFlight() {
        return inFlight;
    }

    /** How many attempts run now. */
    int count() {
        return inFlight.size();
    }

    /** Closes the slots and hands back the runs waiting for one (S-EX-17); running attempts go on. */
    void close() {
        slots.close().forEach(run -> handBack(run, "the worker is stopping"));
        if (executor != null) {
            executor.shutdown();
        }
    }

    /** Waits until every running handler has returned; returns whether they did within the timeout. */
    boolean awaitEnded(Duration timeout) throws InterruptedException {
        // every slot free again: each running handler has returned (a slot is held until then, S-EX-21)
        return slots.awaitAllFree(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Starts a run the poll claimed on a free slot or keeps it for the next slot to free up, or hands it back when
     * the worker is stopping: every run claimed is executed or handed back, whatever else fails (S-EX-17).
     */
    void accept(ClaimedRun run) {
        if (!state.isRunning() || !slots.accept(run)) {
            handBack(run, "the worker is stopping");
        }
    }

    /**
     * Takes a free slot for a run a trigger stores claimed by this worker (S-EX-36); {@code false} when none is free,
     * a run claimed ahead waits for one, or the worker stops.
     */
    boolean reserveSlot() {
        WorkerSlots current = slots;
        return state.isRunning() && current != null && current.reserve();
    }

    /**
     * Starts a run stored claimed by a trigger on the slot {@link #reserveSlot} took for it, or hands it back and
     * frees the slot when the worker stopped meanwhile (S-EX-17). Never throws.
     */
    void startReserved(ClaimedRun run) {
        if (state.isRunning()) {
            slots.startReserved(run);
        } else {
            slots.release();
            handBack(run, "the worker is stopping");
        }
    }

    /** Frees a slot {@link #reserveSlot} took, whose run was not stored claimed. */
    void cancelReservation() {
        slots.release();
        state.wake();
    }

    /** Hands a claimed run back without spending budget (S-EX-17); logs, and leaves it to recovery, if it cannot. */
    void handBack(ClaimedRun run, String reason) {
        try {
            claims.handBack(run, workerId, reason);
        } catch (Throwable ex) {
            logger.warn(
                    "Could not hand back run " + run.run().id() + " (" + reason + "); its lease will expire and"
                            + " recovery will retry it",
                    ex);
        }
    }

    /** Starts a run on a slot acquired for it; hands the run back and frees the slot if it cannot. Never throws. */
    private void start(ClaimedRun run) {
        AttemptContext context = new AttemptContext(run, template);
        inFlight.add(context);
        try {
            Executor handlers = handlerExecutor;
            (handlers != null ? handlers : executor).execute(() -> execute(context));
        } catch (Throwable ex) {
            inFlight.remove(context);
            slots.release();
            handBack(run, ex instanceof RejectedExecutionException ? "the worker is stopping" : "not started: " + ex);
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
                    inFlight.remove(context);
                    handBackLate(context.claimed());
                }
                if (next == null && state.isRunning()) {
                    next = slots.next();
                }
                if (next != null) {
                    context = new AttemptContext(next, template);
                    inFlight.add(context);
                } else {
                    context = null;
                }
            }
        } finally {
            slots.release();
            state.wake();
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
            inFlight.remove(context);
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
                + leaseDuration.toMillis()
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
        return state.isRunning() && slots.waiting() == 0 ? rotation.claimFollowUp() : null;
    }
}

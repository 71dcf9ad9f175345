package io.runlane.internal.worker;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.LocalStarts;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.step.DurableExecution;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims due runs and executes them, as many at once as {@code runlane.worker.concurrency} allows.
 *
 * <p>One polling thread ({@link RunPoller}) claims due runs in batches for the worker's slots and hands each to
 * {@link RunningAttempts}, which runs it on a bounded pool of daemon threads and leaves its completion to the
 * {@link CompletionWriter}. {@link WorkerState} holds whether the worker runs and wakes the poller: a run was
 * triggered ({@link WakeUpListener}), a slot freed up, or the worker stops. A separate scheduler thread sends
 * heartbeats that extend the leases of every running attempt, of the runs waiting for a slot and of the completions
 * waiting to be written, and tell attempts about cancellation (S-EX-2, S-CA-2), independently of handler threads,
 * so a CPU-bound handler keeps its lease.
 *
 * <p>Every thread is supervised (S-MO-4): loop bodies catch everything, each heartbeat restarts a dead poller,
 * listener or completion writer, the poller reschedules heartbeats that ended, and {@link #deadThreads()} names what
 * is dead for the health check.
 *
 * <p>While it runs, the worker offers its free slots to this instance's triggers ({@link LocalStarts}, S-EX-36): a
 * run of a task it would claim from a queue without a concurrency limit, unthrottled, may be stored already claimed
 * by it and start on the reserved slot after the trigger's commit, with no claim statement and no wake-up.
 *
 * <p>Stopping (S-EX-8) stops claiming, hands back the runs waiting for a slot (S-EX-17), waits up to the shutdown
 * timeout for running attempts (their heartbeats go on meanwhile), writes the completions still waiting, then stops
 * heartbeats. Attempts still running after that are never interrupted; their leases expire and recovery retries
 * them, so no run is lost.
 */
public final class RunWorker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RunWorker.class);

    private static final AtomicInteger WORKERS = new AtomicInteger();

    private final String workerId;

    private final RunlaneSettings settings;

    private final ExecutionSettings execution;

    private final WorkerState state = new WorkerState();

    private final Heartbeats heartbeats;

    private final RunningAttempts attempts;

    private final RunPoller poller;

    private final QueueRotation rotation;

    private final CompletionWriter completionWriter;

    private final OutcomeRetries outcomeRetries = new OutcomeRetries();

    private final AttemptTimeouts timeouts;

    private final DueRunNotifier notifier;

    private final WorkerThreads threads;

    private volatile boolean autoStartup = true;

    private final LocalStarts localStarts;

    /** The tasks whose runs a trigger may store claimed by this worker (S-EX-36): those without a throttle. */
    private final Set<String> startableTasks;

    /** The queues whose runs a trigger may store claimed by this worker: consumed, without a concurrency limit. */
    private final Set<String> startableQueues;

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
            DurableExecution durable,
            LocalStarts localStarts) {
        this.workerId = "worker-" + WORKERS.incrementAndGet() + "-" + UUID.randomUUID();
        this.settings = settings;
        this.execution = execution;
        this.notifier = notifier;
        this.localStarts = localStarts;
        this.startableTasks = tasks.all().stream()
                .filter(task -> task.throttle() == null)
                .map(TaskDefinition::id)
                .collect(Collectors.toUnmodifiableSet());
        this.startableQueues = consumedQueues().stream()
                .filter(queue -> !execution.concurrencyLimits().containsKey(queue))
                .collect(Collectors.toUnmodifiableSet());
        LeaseMargin margin = new LeaseMargin(execution.leaseDuration(), execution.heartbeatInterval());
        ClaimPace pace = new ClaimPace();
        this.rotation =
                new QueueRotation(claims, workerId, consumedQueues(), List.copyOf(tasks.all()), execution, listener);
        RefusedOutcomes refusals = new RefusedOutcomes(claims);
        this.completionWriter = new CompletionWriter(completions, workerId, listener, outcomeRetries, refusals);
        RetryPolicy retries = new RetryPolicy(execution);
        FailureDescriber failures = new FailureDescriber(execution.maxFailureMessageLength());
        this.timeouts = new AttemptTimeouts(tasks, execution, outcomes, retries, failures, listener);
        AttemptRunner runner = new AttemptRunner(
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
        RunningAttempts running = new RunningAttempts(
                workerId, state, claims, runner, rotation, pace, margin, execution.leaseDuration(), template, listener);
        this.attempts = running;
        Heartbeats heartbeat = new Heartbeats(claims, workerId, margin, running::inFlight, this::heldRunIds, listener);
        this.heartbeats = heartbeat;
        this.poller = new RunPoller(
                state, rotation, running, heartbeat, pace, execution.pollInterval(), this::superviseHeartbeats);
        this.threads = new WorkerThreads(
                workerId,
                poller::pollUntilStopped,
                () -> {
                    // S-EX-21: attempts past their timeout end before the leases of the others are extended.
                    timeouts.enforce(running.inFlight(), workerId);
                    heartbeat.beat();
                },
                execution.heartbeatInterval(),
                () -> new WakeUpListener(dataSource, settings.schema(), notifier.origin(), this::wake),
                completionWriter);
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
        return attempts.count();
    }

    /** Attempts running past their timeout or their cancellation grace (S-EX-21, S-CA-5), described for health. */
    public List<String> overdueAttempts() {
        return timeouts.overdue(attempts.inFlight());
    }

    /** When the polling thread last claimed successfully, if ever. */
    public @Nullable Instant lastPoll() {
        return poller.lastPoll();
    }

    /** The last polling failure, cleared by the next successful poll. */
    public @Nullable Throwable lastPollFailure() {
        return poller.lastPollFailure();
    }

    /** Polls that failed since the last one that succeeded. */
    public long pollFailuresInARow() {
        return poller.failuresInARow();
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
        boolean started = state.start(() -> {
            attempts.open(execution.concurrency());
            threads.start();
            notifier.setLocalWakeUp(this::wake);
            if (execution.startOnTrigger()) {
                localStarts.offer(this::reserve);
            }
        });
        if (started) {
            logger.info("Runlane worker " + workerId + " started with " + execution.concurrency() + " slots on queues "
                    + consumedQueues());
        }
    }

    @Override
    public void stop() {
        if (!state.stop()) {
            return;
        }
        localStarts.offer(null);
        notifier.setLocalWakeUp(null);
        wake();
        threads.stopPolling();
        attempts.close();
        try {
            if (!attempts.awaitEnded(execution.shutdownTimeout())) {
                logger.warn(attempts.count() + " attempt(s) still running after the shutdown timeout of "
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
        return state.isRunning();
    }

    /**
     * Runs handlers on this executor from the next start instead of a pool of the worker's own (Boot's
     * {@code SimpleAsyncTaskExecutorBuilder}: virtual threads, the application's {@code TaskDecorator}). The worker's
     * slots still bound how many run at once.
     */
    public void setHandlerExecutor(@Nullable Executor handlerExecutor) {
        attempts.setHandlerExecutor(handlerExecutor);
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

    /** Wakes the polling thread: a run may be due, so throttled tasks at rest claim again (S-TH-2). */
    public void wake() {
        rotation.dueRunsNotified();
        state.wakeForDueRuns();
    }

    /**
     * A free slot for a run a trigger is about to store claimed by this worker (S-EX-36), for a run this worker's
     * own claim would take; {@code null} otherwise, or when no slot is free.
     */
    private LocalStarts.@Nullable Reservation reserve(String taskId, String queue) {
        if (!startableTasks.contains(taskId) || !startableQueues.contains(queue) || !attempts.reserveSlot()) {
            return null;
        }
        return new SlotReservation();
    }

    /** A slot {@link #reserve} took; started or cancelled exactly once by the trigger that holds it. */
    private final class SlotReservation implements LocalStarts.Reservation {

        @Override
        public String workerId() {
            return workerId;
        }

        @Override
        public Duration lease() {
            return execution.leaseDuration();
        }

        @Override
        public void start(ClaimedRun run) {
            attempts.startReserved(run);
        }

        @Override
        public void cancel() {
            attempts.cancelReservation();
        }
    }

    private void superviseHeartbeats() {
        threads.superviseHeartbeats();
    }

    /** The runs whose leases heartbeats extend besides the running attempts': waiting completions and slots. */
    private Set<UUID> heldRunIds() {
        Set<UUID> held = new HashSet<>(completionWriter.waitingRunIds());
        held.addAll(attempts.waitingRunIds());
        return held;
    }

    private List<String> consumedQueues() {
        return settings.queues().stream()
                .filter(queue ->
                        execution.queues().isEmpty() || execution.queues().contains(queue))
                .sorted()
                .toList();
    }
}

package io.runlane.internal.maintenance;

import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.wait.MissedWakeUps;
import io.runlane.internal.worker.AttemptOutcomes;
import io.runlane.internal.worker.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Recovers expired leases every {@code runlane.recovery.interval} (jittered), batch after batch until none is left
 * (S-EX-7), then cancels runs that ignored their cancellation past the grace (S-CA-5), then wakes waiting runs whose
 * awaited run ended without waking them ({@link MissedWakeUps}, S-RS-4). Safe on every instance at once.
 */
public final class MaintenanceService extends PeriodicJob {

    private final LeaseRescuer rescuer;

    private final CancellationGrace cancellations;

    private final MissedWakeUps missedWakeUps;

    private final int batchSize;

    private volatile @Nullable Instant lastRecovery;

    /**
     * The maintenance concern's entry point for recovery: the job, its {@link #rescuer() lease rescuer} and the
     * cancellation grace share one reader of expired leases and the worker's attempt outcomes.
     */
    public static MaintenanceService create(
            JdbcClient jdbc,
            SqlTemplate sql,
            String environment,
            AttemptOutcomes outcomes,
            TaskRegistry tasks,
            ExecutionSettings execution,
            MissedWakeUps missedWakeUps,
            EngineListener listener) {
        ExpiredLeases expiredLeases = new ExpiredLeases(jdbc, sql, environment);
        LeaseRescuer rescuer = new LeaseRescuer(
                expiredLeases, outcomes, tasks, new RetryPolicy(execution), execution.recoveryBatchSize(), listener);
        CancellationGrace cancellations = new CancellationGrace(
                expiredLeases, outcomes, execution.cancellationGrace(), execution.recoveryBatchSize(), listener);
        return new MaintenanceService(
                rescuer, cancellations, missedWakeUps, execution.recoveryBatchSize(), execution.recoveryInterval());
    }

    private MaintenanceService(
            LeaseRescuer rescuer,
            CancellationGrace cancellations,
            MissedWakeUps missedWakeUps,
            int batchSize,
            Duration interval) {
        super("recovery", interval);
        this.rescuer = rescuer;
        this.cancellations = cancellations;
        this.missedWakeUps = missedWakeUps;
        this.batchSize = batchSize;
    }

    /** Recovers expired leases one batch at a time; the worker and tests call it between the job's ticks. */
    public LeaseRescuer rescuer() {
        return rescuer;
    }

    /** When lease recovery last completed, if ever. */
    public @Nullable Instant lastRecovery() {
        return lastRecovery;
    }

    @Override
    protected void runOnce() {
        int rescued;
        do {
            rescued = rescuer.rescueExpired();
        } while (rescued > 0 && isRunning() && !Thread.currentThread().isInterrupted());
        int cancelled;
        do {
            cancelled = cancellations.cancelOverdue();
        } while (cancelled > 0 && isRunning() && !Thread.currentThread().isInterrupted());
        int woken;
        do {
            woken = missedWakeUps.wakeStranded(batchSize);
        } while (woken >= batchSize && isRunning() && !Thread.currentThread().isInterrupted());
        lastRecovery = Instant.now();
    }
}

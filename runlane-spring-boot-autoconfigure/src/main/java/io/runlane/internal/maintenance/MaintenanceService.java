package io.runlane.internal.maintenance;

import io.runlane.internal.wait.MissedWakeUps;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

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

    public MaintenanceService(
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

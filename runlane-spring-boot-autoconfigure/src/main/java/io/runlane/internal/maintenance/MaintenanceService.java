package io.runlane.internal.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs the maintenance jobs on one daemon thread: lease recovery every {@code runlane.recovery.interval}, with jitter
 * so that instances started together do not recover in lock-step. A failing tick is logged and retried at the next.
 */
public final class MaintenanceService implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(MaintenanceService.class);

    private final LeaseRescuer rescuer;

    private final Duration interval;

    private volatile @Nullable ScheduledExecutorService scheduler;

    private volatile @Nullable Instant lastRecovery;

    public MaintenanceService(LeaseRescuer rescuer, Duration interval) {
        this.rescuer = rescuer;
        this.interval = interval;
    }

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-maintenance-");
        threads.setDaemon(true);
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(threads);
        long millis = interval.toMillis();
        long initialDelay = ThreadLocalRandom.current().nextLong(millis / 2, millis + 1);
        started.scheduleWithFixedDelay(this::recover, initialDelay, millis, TimeUnit.MILLISECONDS);
        scheduler = started;
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }

    /** When lease recovery last completed, if ever. */
    public @Nullable Instant lastRecovery() {
        return lastRecovery;
    }

    private void recover() {
        try {
            int rescued;
            do {
                rescued = rescuer.rescueExpired();
            } while (rescued > 0 && scheduler != null && !Thread.currentThread().isInterrupted());
            lastRecovery = Instant.now();
        } catch (Throwable ex) {
            // A scheduled task that throws is never run again; keep the job alive and report at the next tick.
            logger.warn("Lease recovery failed; retrying at the next tick", ex);
        }
    }
}

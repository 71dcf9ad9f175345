package io.runlane.internal.maintenance;

import io.runlane.internal.kernel.DatabaseOutage;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs a maintenance task on its own daemon thread at a fixed delay, starting after a random part of the interval so
 * that instances started together do not run in lock-step. A failing run, errors included, is logged (once per
 * outage) and the task runs again at the next tick: a scheduled task that throws would otherwise never run again.
 */
abstract class PeriodicJob implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(PeriodicJob.class);

    private final String name;

    private final Duration interval;

    private volatile ScheduledExecutorService scheduler;

    /** Ticks run one at a time on the job's thread; an outage is logged once, and it retries at the next tick. */
    private final DatabaseOutage outage;

    PeriodicJob(String name, Duration interval) {
        this.name = name;
        this.interval = interval;
        this.outage = new DatabaseOutage(logger, "Runlane " + name, interval);
    }

    /** One run of the job. */
    protected abstract void runOnce();

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-" + name + "-");
        threads.setDaemon(true);
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(threads);
        long millis = interval.toMillis();
        long initialDelay = ThreadLocalRandom.current().nextLong(millis / 2, millis + 1);
        started.scheduleWithFixedDelay(this::tick, initialDelay, millis, TimeUnit.MILLISECONDS);
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

    private void tick() {
        try {
            runOnce();
            outage.succeeded();
        } catch (Throwable ex) {
            outage.failed(ex);
        }
    }
}

package io.runlane.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The long-lived threads of one worker, supervised (S-MO-4): the polling thread, the listening thread, the
 * completion writer and the heartbeat scheduler.
 *
 * <p>Each heartbeat also checks the other threads and restarts the poller, the listener or the completion writer
 * if one died; the polling thread, in turn, schedules the heartbeats again if their task ended. Loop bodies catch
 * everything, so a restart is a last resort. {@link #dead()} names what is dead now, for the health check. Stopping
 * ends every thread started here.
 */
final class WorkerThreads {

    private static final Log logger = LogFactory.getLog(WorkerThreads.class);

    private static final long JOIN_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final String workerId;

    private final Runnable pollLoop;

    private final Runnable heartbeat;

    private final Duration heartbeatInterval;

    private final Supplier<WakeUpListener> listeners;

    private final CompletionWriter completionWriter;

    private final Object lock = new Object();

    private boolean running;

    private @Nullable Thread poller;

    private @Nullable ScheduledExecutorService heartbeats;

    private @Nullable ScheduledFuture<?> heartbeatTask;

    private @Nullable WakeUpListener wakeUpListener;

    private @Nullable Thread listenerThread;

    WorkerThreads(
            String workerId,
            Runnable pollLoop,
            Runnable heartbeat,
            Duration heartbeatInterval,
            Supplier<WakeUpListener> listeners,
            CompletionWriter completionWriter) {
        this.workerId = workerId;
        this.pollLoop = pollLoop;
        this.heartbeat = heartbeat;
        this.heartbeatInterval = heartbeatInterval;
        this.listeners = listeners;
        this.completionWriter = completionWriter;
    }

    static CustomizableThreadFactory daemonThreads(String prefix) {
        CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
        factory.setDaemon(true);
        return factory;
    }

    void start() {
        synchronized (lock) {
            running = true;
            heartbeats = Executors.newSingleThreadScheduledExecutor(daemonThreads("runlane-heartbeat-"));
            completionWriter.start(daemonThreads("runlane-completions-"));
            scheduleHeartbeats();
            startListener();
            startPoller();
        }
    }

    /** Ends supervision, waits for the polling thread to end and stops listening. Heartbeats go on. */
    void stopPolling() {
        Thread stoppingPoller;
        synchronized (lock) {
            running = false;
            stoppingPoller = poller;
        }
        join(stoppingPoller);
        wakeUpListener.stop();
        listenerThread.interrupt();
    }

    /** Stops heartbeats and waits for the listening thread; after {@link #stopPolling()}. */
    void stopHeartbeats() {
        heartbeats.shutdownNow();
        join(listenerThread);
        try {
            heartbeats.awaitTermination(JOIN_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The threads of a running worker that are dead now. */
    List<String> dead() {
        synchronized (lock) {
            if (!running) {
                return List.of();
            }
            List<String> dead = new ArrayList<>();
            if (!poller.isAlive()) {
                dead.add("poller");
            }
            if (!listenerThread.isAlive()) {
                dead.add("listener");
            }
            if (!completionWriter.isAlive()) {
                dead.add("completion writer");
            }
            if (heartbeatTask.isDone()) {
                dead.add("heartbeat");
            }
            return dead;
        }
    }

    /** Schedules the heartbeats again if their task ended, which only an escaped throwable could do. */
    void superviseHeartbeats() {
        synchronized (lock) {
            if (running && heartbeatTask.isDone() && !heartbeats.isShutdown()) {
                logger.error("The heartbeats of worker " + workerId + " stopped; scheduling them again");
                scheduleHeartbeats();
            }
        }
    }

    private void heartbeatAndSupervise() {
        try {
            heartbeat.run();
            superviseThreads();
        } catch (Throwable ex) {
            logger.error("A heartbeat of worker " + workerId + " failed", ex);
        }
    }

    private void superviseThreads() {
        synchronized (lock) {
            if (!running) {
                return;
            }
            if (!poller.isAlive()) {
                logger.error("The polling thread of worker " + workerId + " died; restarting it");
                startPoller();
            }
            if (!listenerThread.isAlive()) {
                logger.error("The listening thread of worker " + workerId + " died; restarting it");
                wakeUpListener.stop();
                startListener();
            }
            if (completionWriter.restartIfDead(daemonThreads("runlane-completions-"))) {
                logger.error("The completion writer of worker " + workerId + " died; restarted it");
            }
        }
    }

    private void scheduleHeartbeats() {
        long millis = heartbeatInterval.toMillis();
        heartbeatTask =
                heartbeats.scheduleWithFixedDelay(this::heartbeatAndSupervise, millis, millis, TimeUnit.MILLISECONDS);
    }

    private void startListener() {
        wakeUpListener = listeners.get();
        listenerThread = daemonThreads("runlane-listener-").newThread(wakeUpListener);
        listenerThread.start();
    }

    private void startPoller() {
        poller = daemonThreads("runlane-poller-").newThread(pollLoop);
        poller.start();
    }

    private static void join(@Nullable Thread thread) {
        if (thread == null) {
            return;
        }
        try {
            thread.join(JOIN_MILLIS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}

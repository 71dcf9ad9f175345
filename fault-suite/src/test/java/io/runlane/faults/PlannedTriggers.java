package io.runlane.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * Sends a load's planned triggers, each at its planned moment from now, on a pool of daemon threads, and waits until
 * every one was answered or gave up. A trigger is sent by its load's {@link Sender}, which may reschedule its own
 * retries on the same pool and counts the latch down once it is done with the trigger.
 */
final class PlannedTriggers {

    /** Sends one planned trigger; gives up at {@code giveUpAt} ({@link System#nanoTime()}). */
    interface Sender<T> {
        void send(ScheduledExecutorService scheduler, T trigger, long giveUpAt, CountDownLatch done);
    }

    private PlannedTriggers() {}

    /**
     * Runs {@code plan}: each trigger at {@code atMillis} after now, giving up {@code giveUp} after the last planned
     * moment.
     */
    static <T> void run(
            String threadName, int threads, List<T> plan, ToLongFunction<T> atMillis, Duration giveUp, Sender<T> sender)
            throws InterruptedException {
        long giveUpAt = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(
                        plan.stream().mapToLong(atMillis).max().orElse(0))
                + giveUp.toNanos();
        ScheduledExecutorService scheduler = new ScheduledThreadPoolExecutor(threads, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        CountDownLatch done = new CountDownLatch(plan.size());
        try {
            for (T trigger : plan) {
                scheduler.schedule(
                        () -> sender.send(scheduler, trigger, giveUpAt, done),
                        atMillis.applyAsLong(trigger),
                        TimeUnit.MILLISECONDS);
            }
            done.await();
        } finally {
            scheduler.shutdownNow();
        }
    }
}

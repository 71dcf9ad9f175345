package io.runlane.internal.worker;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Whether a worker runs, and the wake-ups its polling thread waits for, under one lock.
 *
 * <p>Starting and stopping change the state under the same lock the poller holds while it checks the state and
 * waits, so a stop is never missed by a poller about to wait: it either sees the worker stopped before it waits, or
 * it waits and the stopper's {@link #wake} ends the wait. A wake-up that arrives while the poller is busy is kept
 * until its next wait, which then returns at once.
 */
final class WorkerState {

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition wakeUp = lock.newCondition();

    private boolean signalled;

    /** A wake-up saying runs may be due (a trigger, a notification) or the worker stops, not only that a slot freed. */
    private boolean dueSignalled;

    private volatile boolean running;

    /** Whether the worker runs: started and not stopped since. */
    boolean isRunning() {
        return running;
    }

    /**
     * Marks the worker running and runs {@code starting} under the lock, unless it runs already; returns whether it
     * started.
     */
    boolean start(Runnable starting) {
        lock.lock();
        try {
            if (running) {
                return false;
            }
            running = true;
            starting.run();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Marks the worker stopped, unless it is stopped already; returns whether it stopped. */
    boolean stop() {
        lock.lock();
        try {
            if (!running) {
                return false;
            }
            running = false;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the polling thread: a slot freed up. */
    void wake() {
        signal(false);
    }

    /** Wakes the polling thread: a run may be due, or the worker stops. */
    void wakeForDueRuns() {
        signal(true);
    }

    private void signal(boolean due) {
        lock.lock();
        try {
            signalled = true;
            dueSignalled |= due;
            wakeUp.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits for any wake-up, at most {@code timeout}, or until the worker stops. */
    void awaitWakeUp(Duration timeout) {
        awaitUntil(() -> signalled, timeout);
    }

    /**
     * Waits for a wake-up saying runs may be due ({@link #wakeForDueRuns}), at most {@code timeout}, or until the worker
     * stops; slots that free up meanwhile do not end the wait.
     */
    void awaitDueRuns(Duration timeout) {
        awaitUntil(() -> dueSignalled, timeout);
    }

    /** Waits for wake-ups until {@code done} holds (checked under the lock), the timeout passes or the worker stops. */
    void awaitUntil(BooleanSupplier done, Duration timeout) {
        lock.lock();
        try {
            long nanos = timeout.toNanos();
            while (running && !done.getAsBoolean() && nanos > 0) {
                nanos = wakeUp.awaitNanos(nanos);
            }
            signalled = false;
            dueSignalled = false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }
}

package io.runlane.benchmarks;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/** One system draining a backlog of no-op jobs with 8 threads, for {@link EndToEndScenario}. */
interface Drain {

    /** The executing threads (workers) of every system. */
    int THREADS = 8;

    /** How long a drain may take before the run is declared stuck. */
    Duration TIMEOUT = Duration.ofMinutes(20);

    String name();

    /** Empties the system's tables and enqueues {@code jobs} due jobs through the system's own API; not timed. */
    void enqueue(int jobs) throws Exception;

    /** Starts executing, waits until every enqueued job has completed in the database, stops; returns the time. */
    Duration drain(int jobs) throws Exception;

    /**
     * Waits until the handlers have executed {@code jobs} jobs, then until the database shows every one completed.
     * The in-memory count is watched first so that the wait does not add queries while the system is busy.
     */
    static void awaitDrained(LongSupplier executed, long jobs, BooleanSupplier completedInDatabase)
            throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (executed.getAsLong() < jobs) {
            checkDeadline(deadline, executed.getAsLong(), jobs);
            Thread.sleep(5);
        }
        while (!completedInDatabase.getAsBoolean()) {
            checkDeadline(deadline, executed.getAsLong(), jobs);
            Thread.sleep(5);
        }
    }

    private static void checkDeadline(long deadline, long executed, long jobs) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                    "Not drained within " + TIMEOUT + ": " + executed + " of " + jobs + " jobs executed");
        }
    }
}

package io.runlane.autoconfigure;

import io.runlane.RunStatus;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.query.RunStatistics.QueueStatistics;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets a test run the runs that are due now and wait until they are done, without sleeping: {@link #drain(Duration)}
 * wakes this application's worker and returns once no run of its queues is due or running, so the test can assert
 * the outcome right after. Runs scheduled for later (a delay, a retry's backoff) are not due: give tests a short
 * {@code runlane.retry.initial-backoff}. Triggers inside a transaction the test has not committed are not seen.
 *
 * <p>Inject it into a {@code @SpringBootTest}; it is auto-configured wherever the worker is.
 */
public final class RunDrainer {

    private static final Duration CHECK_INTERVAL = Duration.ofMillis(10);

    private final RunlaneEngine engine;

    private final RunWorker worker;

    private final List<String> queues;

    RunDrainer(RunlaneEngine engine, RunWorker worker, List<String> queues) {
        this.engine = engine;
        this.worker = worker;
        this.queues = List.copyOf(queues);
    }

    /**
     * Executes every due run of the worker's queues and waits until none is due or running.
     *
     * @throws IllegalStateException naming the runs left when they are not done within {@code timeout}
     */
    public void drain(Duration timeout) {
        if (!worker.isRunning()) {
            worker.start();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            worker.wake();
            Map<String, QueueStatistics> statistics = engine.statistics().byQueue(queues);
            long pending = statistics.values().stream()
                    .mapToLong(RunDrainer::dueOrRunning)
                    .sum();
            if (pending == 0) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        pending + " run(s) still due or running after " + timeout + ": " + statistics.values());
            }
            LockSupport.parkNanos(CHECK_INTERVAL.toNanos());
        }
    }

    private static long dueOrRunning(QueueStatistics queue) {
        return queue.due()
                + queue.activeCounts().getOrDefault(RunStatus.RUNNING, 0L)
                + queue.activeCounts().getOrDefault(RunStatus.CANCELLATION_REQUESTED, 0L);
    }
}

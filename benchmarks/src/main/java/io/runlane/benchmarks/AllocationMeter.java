package io.runlane.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The bytes this JVM's threads allocate on the Java heap during a window, from HotSpot's per-thread allocation
 * counters ({@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long[])}, the counters JFR's
 * {@code jdk.ThreadAllocationStatistics} event reads). Every thread's counter is read at the start and at the end of
 * the window, so the window's edges are exact (a periodic JFR event is emitted on its own schedule, up to one period
 * off the edges). A thread's counter is gone once the thread has ended, so a sampler thread reads every thread's
 * counter every {@value #SAMPLE_MILLIS} ms meanwhile: a thread that ends within the window is counted up to its last
 * sample, and a thread that starts within it from zero. The sampler's own allocation and that of the threads the
 * caller names (its own and its producers', which it accounts for itself) are left out.
 */
final class AllocationMeter {

    private static final long SAMPLE_MILLIS = 20;

    /**
     * Looked up once: {@link ManagementFactory#getThreadMXBean()} allocates about 750 bytes on every call, which {@link
     * #allocatedByThisThread()} would count as part of the work it measures.
     */
    private static final com.sun.management.@Nullable ThreadMXBean THREADS =
            ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads ? threads : null;

    /**
     * What a window allocated.
     *
     * @param bytes the bytes allocated by every thread but the sampler and the excluded threads
     * @param excludedBytes the bytes allocated by the excluded threads
     * @param threadsEnded threads (not excluded) that ended within the window, counted up to their last sample
     */
    record Allocation(long bytes, long excludedBytes, int threadsEnded) {}

    private final com.sun.management.ThreadMXBean threads;

    private final Map<Long, Long> atStart;

    private final Map<Long, Long> latest;

    private final Thread sampler;

    private volatile boolean running = true;

    private AllocationMeter(com.sun.management.ThreadMXBean threads) {
        this.threads = threads;
        this.atStart = read(threads);
        this.latest = new HashMap<>(atStart);
        this.sampler = new Thread(this::sampleUntilStopped, "allocation-meter");
        this.sampler.setDaemon(true);
        this.sampler.start();
    }

    /** Starts a window now. */
    static AllocationMeter start() {
        com.sun.management.ThreadMXBean threads = THREADS;
        if (threads == null || !threads.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("This JVM does not count the bytes each thread allocates");
        }
        threads.setThreadAllocatedMemoryEnabled(true);
        return new AllocationMeter(threads);
    }

    /** The bytes allocated so far by the calling thread, to account for a part of its work. */
    static long allocatedByThisThread() {
        com.sun.management.ThreadMXBean threads = THREADS;
        if (threads == null) {
            throw new IllegalStateException("This JVM does not count the bytes each thread allocates");
        }
        return threads.getCurrentThreadAllocatedBytes();
    }

    /** Ends the window; {@code excluded} are the ids of threads whose bytes are reported apart. */
    Allocation stop(Set<Long> excluded) throws InterruptedException {
        Map<Long, Long> atEnd = read(threads);
        running = false;
        sampler.join();
        long bytes = 0;
        long excludedBytes = 0;
        int ended = 0;
        synchronized (latest) {
            latest.putAll(atEnd);
            for (Map.Entry<Long, Long> thread : latest.entrySet()) {
                long id = thread.getKey();
                if (id == sampler.getId()) {
                    continue;
                }
                long allocated = thread.getValue() - atStart.getOrDefault(id, 0L);
                if (excluded.contains(id)) {
                    excludedBytes += allocated;
                } else {
                    bytes += allocated;
                    if (!atEnd.containsKey(id)) {
                        ended++;
                    }
                }
            }
        }
        return new Allocation(bytes, excludedBytes, ended);
    }

    private void sampleUntilStopped() {
        while (running) {
            Map<Long, Long> now = read(threads);
            synchronized (latest) {
                latest.putAll(now);
            }
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Every live thread's counter; a thread that ended between the two calls reads -1 and is left out. */
    private static Map<Long, Long> read(com.sun.management.ThreadMXBean threads) {
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> counters = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                counters.put(ids[i], bytes[i]);
            }
        }
        return counters;
    }
}

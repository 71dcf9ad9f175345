package io.runlane.benchmarks;

/**
 * A peer's deduplicated enqueue of one new job, through the peer's own client API, for {@link PeerTriggerScenario}:
 * the job carries an order id as its payload and {@code "order." + orderId} as its deduplication id, as Runlane's
 * {@link BenchmarkTasks.OrderTask} does. Nothing executes the jobs while they are enqueued.
 */
interface PeerEnqueue extends AutoCloseable {

    String name();

    /** Enqueues a job for a new order id; fails if the peer reports it as a duplicate. */
    void enqueue(String orderId) throws Exception;

    /** Deduplication id of the job for {@code orderId}, the same for every peer and for Runlane. */
    static String deduplicationId(String orderId) {
        return "order." + orderId;
    }

    @Override
    void close();
}

package io.runlane.benchmarks;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** The tasks the benchmarks trigger and execute. */
final class BenchmarkTasks {

    /** Task id of {@link OrderTask}. */
    static final String ORDER = "bench.order";

    /** Task id of {@link NoopTask}. */
    static final String NOOP = "bench.noop";

    private BenchmarkTasks() {}

    /** A payload like a typical business reference, keyed by it: every trigger carries an idempotency key. */
    @Task(id = ORDER)
    public static final class OrderTask implements TaskHandler<OrderTask.Payload> {

        public record Payload(@NotBlank String orderId) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return "order." + payload.orderId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Does nothing but count its runs and note when the latest one started, for end-to-end and latency. */
    @Task(id = NOOP)
    public static final class NoopTask implements TaskHandler<NoopTask.Payload> {

        public record Payload(int index) {}

        static final AtomicLong EXECUTED = new AtomicLong();

        static volatile CompletableFuture<Long> started = new CompletableFuture<>();

        @Override
        public void run(Payload payload, RunContext context) {
            started.complete(System.nanoTime());
            EXECUTED.incrementAndGet();
        }
    }
}

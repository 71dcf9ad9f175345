package io.runlane.benchmarks;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import jakarta.validation.constraints.NotBlank;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The tasks the benchmarks trigger and execute. */
final class BenchmarkTasks {

    /** Task id of {@link OrderTask}. */
    static final String ORDER = "bench.order";

    /** Task id of {@link LimitedTask}. */
    static final String LIMITED = "bench.limited";

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

    /** Task id of {@link DebouncedTask}. */
    static final String DEBOUNCED = "bench.debounced";

    /** Debounced by the payload's key for an hour, so that a burst of one key folds into one pending run. */
    @Task(id = DEBOUNCED, debounce = "1h")
    public static final class DebouncedTask implements TaskHandler<DebouncedTask.Payload> {

        public record Payload(@NotBlank String key, long sequence) {}

        @Override
        public String debounceKey(Payload payload) {
            return payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Ten runs per key per hour (S-RT-1): a key at its limit refuses every further trigger. */
    @Task(id = LIMITED, rateLimit = 10, rateLimitPeriod = "1h")
    public static final class LimitedTask implements TaskHandler<LimitedTask.Payload> {

        public record Payload(@NotBlank String key) {}

        @Override
        public String rateLimitKey(Payload payload) {
            return payload.key();
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

    /** Task id of {@link ThrottledTask}. */
    static final String THROTTLED = "bench.throttled";

    /** The throttle of {@link ThrottledTask}: attempt starts per second. */
    static final int THROTTLE = 25;

    /** A no-op throttled to {@link #THROTTLE} attempt starts per second for the whole task (S-TH-1). */
    @Task(id = THROTTLED, throttle = THROTTLE, throttlePeriod = "1s")
    public static final class ThrottledTask implements TaskHandler<ThrottledTask.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Task id of {@link CountedTask}. */
    static final String COUNTED = "bench.counted";

    /**
     * Does nothing but count its executions per run id, so that the multi-instance scenario can tell whether any run
     * was executed twice; the scenario clears the counts before each drain.
     */
    @Task(id = COUNTED)
    public static final class CountedTask implements TaskHandler<CountedTask.Payload> {

        public record Payload(int index) {}

        static final Map<UUID, Integer> EXECUTIONS = new ConcurrentHashMap<>();

        /** Executions of every run; counted after the run's entry, so a count that is reached implies its entries. */
        static final AtomicLong EXECUTED = new AtomicLong();

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTIONS.merge(context.runId(), 1, Integer::sum);
            EXECUTED.incrementAndGet();
        }
    }

    /** Task id of {@link TimedTask}. */
    static final String TIMED = "bench.timed";

    /**
     * Does nothing but note when it started, in the slot its payload names, for the steady-load latency: the
     * scenario installs a fresh {@link StartTimes} for each round, and runs of an earlier round are ignored.
     */
    @Task(id = TIMED)
    public static final class TimedTask implements TaskHandler<TimedTask.Payload> {

        public record Payload(int round, int index) {}

        /** When each run of one round started ({@link System#nanoTime()}), 0 until it has. */
        record StartTimes(int round, java.util.concurrent.atomic.AtomicLongArray nanos) {}

        static volatile StartTimes startTimes = new StartTimes(-1, new java.util.concurrent.atomic.AtomicLongArray(0));

        @Override
        public void run(Payload payload, RunContext context) {
            long now = System.nanoTime();
            StartTimes times = startTimes;
            if (times.round() == payload.round()
                    && payload.index() < times.nanos().length()) {
                times.nanos().compareAndSet(payload.index(), 0, now);
            }
        }
    }

    /** Task id of {@link StepsTask}. */
    static final String STEPS = "bench.steps";

    /** Task id of {@link ParentTask}. */
    static final String PARENT = "bench.parent";

    /** Task id of {@link ChildTask}. */
    static final String CHILD = "bench.child";

    /** Runs as many no-op durable steps as its payload says, timing each step call. */
    @Task(id = STEPS)
    public static final class StepsTask implements TaskHandler<StepsTask.Payload> {

        public record Payload(int index, int steps) {}

        static final AtomicLong EXECUTED = new AtomicLong();

        /** Nanoseconds each recorded step call took, while a scenario collects them. */
        static final java.util.Queue<Long> STEP_NANOS = new java.util.concurrent.ConcurrentLinkedQueue<>();

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            for (int i = 0; i < payload.steps(); i++) {
                long began = System.nanoTime();
                context.step("step", step -> {});
                STEP_NANOS.add(System.nanoTime() - began);
            }
            EXECUTED.incrementAndGet();
        }
    }

    /**
     * Returns after 20 ms, so that its parent has parked by then, noting when it returned, so that the await scenario
     * can time its parent's resumption.
     */
    @Task(id = CHILD)
    public static final class ChildTask implements TaskFunction<ChildTask.Payload, Integer> {

        public record Payload(int index) {}

        static final java.util.Map<Integer, Long> RETURNED_AT = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public Integer run(Payload payload, RunContext context) throws InterruptedException {
            Thread.sleep(20);
            RETURNED_AT.put(payload.index(), System.nanoTime());
            return payload.index();
        }
    }

    /** Triggers a child in a step and awaits its result durably, noting when the await returned. */
    @Task(id = PARENT)
    public static final class ParentTask implements TaskFunction<ParentTask.Payload, Integer> {

        public record Payload(int index) {}

        static final java.util.Map<Integer, Long> RESUMED_AT = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public Integer run(Payload payload, RunContext context) throws Exception {
            java.util.UUID child = context.step(
                    "spawn",
                    java.util.UUID.class,
                    step -> context.runlane()
                            .trigger(
                                    CHILD,
                                    new ChildTask.Payload(payload.index()),
                                    TriggerOptions.builder()
                                            .idempotencyKey(step.stepId())
                                            .build())
                            .runId());
            Integer result = context.awaitResult(child, Integer.class, java.time.Duration.ofMinutes(1));
            RESUMED_AT.put(payload.index(), System.nanoTime());
            return result;
        }
    }
}

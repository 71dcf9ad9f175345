package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A steady producer on its own thread: triggers a new run with its own idempotency key, pauses 5 ms, and repeats,
 * timing every trigger. It stands for the application's traffic while something else happens (pruning).
 */
final class PacedTriggers {

    private static final long PAUSE_MILLIS = 5;

    private final RunlaneTemplate template;

    private final String prefix = "paced-" + UUID.randomUUID() + "-";

    private final List<Double> millis = new ArrayList<>();

    private volatile boolean running;

    private Thread thread;

    private volatile Throwable failure;

    PacedTriggers(RunlaneTemplate template) {
        this.template = template;
    }

    /** Triggers for the given time on the calling thread's behalf and returns the latencies. */
    static Latencies sampleFor(RunlaneTemplate template, Duration duration) throws InterruptedException {
        PacedTriggers triggers = new PacedTriggers(template);
        triggers.start();
        Thread.sleep(duration.toMillis());
        return triggers.stop();
    }

    void start() {
        running = true;
        thread = new Thread(this::loop, "paced-triggers");
        thread.start();
    }

    Latencies stop() throws InterruptedException {
        running = false;
        thread.join();
        if (failure != null) {
            throw new IllegalStateException("A paced trigger failed", failure);
        }
        return new Latencies(millis);
    }

    private void loop() {
        try {
            long sequence = 0;
            while (running) {
                long before = System.nanoTime();
                template.trigger(BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(prefix + sequence++));
                millis.add(Latencies.millisSince(before));
                Thread.sleep(PAUSE_MILLIS);
            }
        } catch (Throwable ex) {
            failure = ex;
        }
    }
}

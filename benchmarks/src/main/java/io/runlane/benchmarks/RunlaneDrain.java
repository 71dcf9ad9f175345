package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerRequest;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.time.Duration;
import java.util.stream.IntStream;

/** Runlane: one application instance whose worker runs 8 attempts at once, polling every 100 ms when idle. */
final class RunlaneDrain implements Drain {

    private static final int TRIGGER_BATCH = 1_000;

    private final BenchmarkContext context;

    RunlaneDrain(BenchmarkContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "Runlane";
    }

    @Override
    public void enqueue(int jobs) {
        context.resetRuns();
        RunlaneTemplate template = context.engine().template();
        for (int from = 0; from < jobs; from += TRIGGER_BATCH) {
            template.triggerAll(IntStream.range(from, Math.min(jobs, from + TRIGGER_BATCH))
                    .mapToObj(i -> TriggerRequest.of(BenchmarkTasks.NOOP, new BenchmarkTasks.NoopTask.Payload(i)))
                    .toList());
        }
        context.vacuumAnalyzeRunlane();
    }

    @Override
    public Duration drain(int jobs) throws InterruptedException {
        RunlaneEngine engine = context.engine(ExecutionSettings.defaults().withWorker(THREADS, Duration.ofMillis(100)));
        String remaining = "SELECT count(*) FROM " + BenchmarkContext.SCHEMA + ".runs WHERE task_id = '"
                + BenchmarkTasks.NOOP + "' AND finished_at IS NULL";
        long before = BenchmarkTasks.NoopTask.EXECUTED.get();
        long began = System.nanoTime();
        engine.worker().start();
        try {
            Drain.awaitDrained(
                    () -> BenchmarkTasks.NoopTask.EXECUTED.get() - before,
                    jobs,
                    () -> context.jdbc().queryForObject(remaining, Long.class) == 0);
            return Duration.ofNanos(System.nanoTime() - began);
        } finally {
            engine.worker().stop();
        }
    }
}

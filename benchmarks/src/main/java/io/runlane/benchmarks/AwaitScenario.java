package io.runlane.benchmarks;

import io.runlane.TriggerOptions;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Durable await latency (S-RS-4): a parent triggers a child in a step and awaits it with {@code
 * context.awaitResult}, parking as {@code WAITING}; the figure is the time from the child's handler returning to
 * the parent's {@code awaitResult} returning in its next attempt. It covers the child's batched completion, the
 * wake-up written by that same statement with its notification, the parent's claim, and the replay of its step. The
 * worker polls every 1 s (the default), so a fast figure shows the notification path, not polling.
 */
final class AwaitScenario implements Scenario {

    @Override
    public String name() {
        return "await";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        int samples = context.options().size(200, 50);
        RunlaneEngine engine = context.engine(ExecutionSettings.defaults());
        engine.worker().start();
        try {
            int index = 0;
            index = sample(engine, index, context.options().size(30, 10)).last();
            List<Latencies> rounds = new ArrayList<>();
            for (int round = 0; round < context.options().rounds(); round++) {
                Sampled sampled = sample(engine, index, samples);
                index = sampled.last();
                rounds.add(sampled.latencies());
            }
            Latencies.Series series = new Latencies.Series("child completion to parent resumption", rounds);
            report.latency(series);
            context.progress(
                    "await: child completion to parent resumption p50 %s ms, p99 %s ms",
                    series.p50().format(2), series.p99().format(2));
        } finally {
            engine.worker().stop();
        }
    }

    private record Sampled(Latencies latencies, int last) {}

    private static Sampled sample(RunlaneEngine engine, int from, int samples) throws Exception {
        List<Double> millis = new ArrayList<>();
        int index = from;
        for (int i = 0; i < samples; i++) {
            index++;
            var parent = engine.template()
                    .trigger(
                            BenchmarkTasks.PARENT, new BenchmarkTasks.ParentTask.Payload(index), TriggerOptions.none());
            engine.template().runs().awaitResult(parent.runId(), Integer.class, java.time.Duration.ofSeconds(30));
            long returned = BenchmarkTasks.ChildTask.RETURNED_AT.get(index);
            long resumed = BenchmarkTasks.ParentTask.RESUMED_AT.get(index);
            millis.add((resumed - returned) / 1e6);
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return new Sampled(new Latencies(millis), index);
    }
}

package io.runlane.benchmarks;

import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A throttled task at its limit (S-TH-1, S-TH-2): a backlog of {@link BenchmarkTasks#THROTTLE} runs per window for
 * several windows drains while a backlog of unthrottled no-op runs drains beside it on the same worker. The figure is
 * the throttled task's achieved attempt starts per second, from the database's {@code CLAIMED} times, divided by the
 * throttle: the starts after the first window over the time from the first start to the last. The worker wakes when
 * a window frees a start, so the figure shows how close to the window's end each batch starts.
 */
final class ThrottleScenario implements Scenario {

    private static final int BATCH = 500;

    @Override
    public String name() {
        return "throttle";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int windows = context.options().size(10, 5);
        int throttled = windows * BenchmarkTasks.THROTTLE;
        int others = context.options().size(50_000, 10_000);
        Rounds alone = new Rounds(measure(context, throttled, 0, new ArrayList<>()));
        report.figure("throttled task alone at its limit: achieved attempt starts/s ÷ the throttle", alone, 2);
        List<Double> otherRates = new ArrayList<>();
        Rounds ratio = new Rounds(measure(context, throttled, others, otherRates));
        report.figure("unthrottled task draining beside a throttled one (runs/s)", new Rounds(otherRates), 0);
        report.target(
                Goal.THROTTLE_AT_LIMIT,
                ratio,
                "throttle " + BenchmarkTasks.THROTTLE + "/s, " + windows + " windows of backlog, beside " + others
                        + " unthrottled no-op runs");
    }

    /** The achieved ratio per round, with {@code others} unthrottled runs draining beside the throttled ones. */
    private static List<Double> measure(BenchmarkContext context, int throttled, int others, List<Double> otherRates)
            throws Exception {
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < context.options().rounds(); round++) {
            context.resetRuns();
            RunlaneEngine engine = context.engine(ExecutionSettings.defaults());
            trigger(engine, BenchmarkTasks.THROTTLED, throttled, i -> new BenchmarkTasks.ThrottledTask.Payload(i));
            trigger(engine, BenchmarkTasks.NOOP, others, i -> new BenchmarkTasks.NoopTask.Payload(i));
            context.vacuumAnalyzeRunlane();
            long began = System.nanoTime();
            engine.worker().start();
            try {
                long othersDone = awaitSucceeded(context, BenchmarkTasks.NOOP, others, began);
                awaitSucceeded(context, BenchmarkTasks.THROTTLED, throttled, began);
                if (others > 0) {
                    otherRates.add(others / (othersDone / 1e9));
                }
            } finally {
                engine.worker().stop();
            }
            Map<String, Object> starts = context.jdbc()
                    .queryForMap(
                            "SELECT count(*) AS n, extract(epoch FROM max(e.created_at) - min(e.created_at)) AS span"
                                    + " FROM " + BenchmarkContext.SCHEMA + ".run_events e JOIN "
                                    + BenchmarkContext.SCHEMA
                                    + ".runs r ON r.id = e.run_id WHERE r.task_id = ? AND e.type = 'CLAIMED'",
                            BenchmarkTasks.THROTTLED);
            long n = ((Number) starts.get("n")).longValue();
            double span = ((Number) starts.get("span")).doubleValue();
            double achieved = (n - BenchmarkTasks.THROTTLE) / span;
            ratios.add(achieved / BenchmarkTasks.THROTTLE);
            context.progress(
                    "throttle: %d starts over %.3f s: %.1f starts/s of %d/s, beside %d unthrottled runs%s",
                    n,
                    span,
                    achieved,
                    BenchmarkTasks.THROTTLE,
                    others,
                    others > 0 ? String.format(" drained at %.0f runs/s", otherRates.get(otherRates.size() - 1)) : "");
        }
        return ratios;
    }

    private interface PayloadOf {

        Object payload(int index);
    }

    private static void trigger(RunlaneEngine engine, String taskId, int runs, PayloadOf payloads) {
        for (int from = 0; from < runs; from += BATCH) {
            List<TriggerRequest> batch = new ArrayList<>();
            for (int i = from; i < Math.min(runs, from + BATCH); i++) {
                batch.add(TriggerRequest.of(taskId, payloads.payload(i), TriggerOptions.none()));
            }
            engine.template().triggerAll(batch);
        }
    }

    /** Waits until {@code runs} runs of the task succeeded; returns the nanoseconds since {@code began}. */
    private static long awaitSucceeded(BenchmarkContext context, String taskId, int runs, long began)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            Long done = context.jdbc()
                    .queryForObject(
                            "SELECT count(*) FROM " + BenchmarkContext.SCHEMA
                                    + ".runs WHERE task_id = ? AND status = 'SUCCEEDED'",
                            Long.class,
                            taskId);
            if (done != null && done >= runs) {
                return System.nanoTime() - began;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        throw new IllegalStateException(taskId + ": " + runs + " runs did not succeed within 5 minutes");
    }
}

package io.runlane.benchmarks;

import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throttled task at its limit (S-TH-1, S-TH-2): a backlog of {@link BenchmarkTasks#THROTTLE} runs per window for
 * several windows drains alone, and again while a backlog of unthrottled no-op runs drains beside it on the same
 * worker; each round also drains the no-op backlog alone, so that its rate beside the throttled task is compared with
 * its own rate in the same round. The figure is
 * the throttled task's achieved attempt starts per second in steady state, from the database's {@code CLAIMED} times,
 * divided by the throttle: the starts after the first window over the time from the last start of the first window to
 * the last start, a whole number of periods at the limit ({@link Steady}). The worker wakes when a window frees a
 * start, so the figure shows how close to the freed slot each start comes; the progress line says how late.
 */
final class ThrottleScenario implements Scenario {

    private static final int BATCH = 500;

    /** The throttle's period, {@code throttlePeriod = "1s"} of {@link BenchmarkTasks.ThrottledTask}. */
    private static final double PERIOD_SECONDS = 1.0;

    /**
     * The steady state of a key's sorted start times {@code s}: the starts after its first window, {@code s[N]} to
     * {@code s[n-1]}, over the time from {@code s[N-1]} to {@code s[n-1]}. At the limit each start comes one period
     * after the start {@code N} before it, so that time is a whole number of periods, {@code (n-N)/N}, whatever the
     * spread of the first window's starts (claimed a few at a time as the worker warms up) and the time the worker
     * took to start; a start's lateness is {@code s[i+N] - s[i] - period}, what the engine adds at each window edge.
     */
    record Steady(int starts, double seconds, double throttle, List<Double> lateMillis) {

        static Steady of(List<Double> sorted, int throttle, double periodSeconds) {
            int n = sorted.size();
            if (n <= throttle) {
                throw new IllegalStateException(n + " starts, not more than one window of " + throttle);
            }
            List<Double> late = new ArrayList<>();
            for (int i = 0; i + throttle < n; i++) {
                late.add((sorted.get(i + throttle) - sorted.get(i) - periodSeconds) * 1000);
            }
            late.sort(null);
            return new Steady(
                    n - throttle, sorted.get(n - 1) - sorted.get(throttle - 1), throttle / periodSeconds, late);
        }

        double perSecond() {
            return starts / seconds;
        }

        /** Achieved starts per second ÷ the throttle's. */
        double ratio() {
            return perSecond() / throttle;
        }

        /** The {@code quantile} (0 to 1) of the starts' lateness, nearest rank. */
        double lateMillis(double quantile) {
            return lateMillis.get((int) Math.min(lateMillis.size() - 1, Math.floor(quantile * lateMillis.size())));
        }
    }

    @Override
    public String name() {
        return "throttle";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int windows = context.options().size(10, 5);
        int throttled = windows * BenchmarkTasks.THROTTLE;
        int others = context.options().size(50_000, 10_000);
        List<Double> alone = new ArrayList<>();
        List<Double> beside = new ArrayList<>();
        List<Double> othersAlone = new ArrayList<>();
        List<Double> othersBeside = new ArrayList<>();
        for (int round = 0; round < context.options().rounds(); round++) {
            alone.add(drain(context, throttled, 0).ratio());
            othersAlone.add(drain(context, 0, others).othersPerSecond());
            Drained both = drain(context, throttled, others);
            beside.add(both.ratio());
            othersBeside.add(both.othersPerSecond());
        }
        report.figure(
                "throttled task alone at its limit: achieved attempt starts/s ÷ the throttle", new Rounds(alone), 2);
        report.figure("unthrottled task draining alone (runs/s)", new Rounds(othersAlone), 0);
        report.figure("unthrottled task draining beside a throttled one (runs/s)", new Rounds(othersBeside), 0);
        report.ratio(
                "unthrottled task beside a throttled one ÷ alone (runs/s)",
                new Rounds(othersBeside),
                new Rounds(othersAlone),
                "the no-op drain of the throttle scenario with and without the throttled backlog, in the same rounds");
        report.target(
                Goal.THROTTLE_AT_LIMIT,
                new Rounds(beside),
                "throttle " + BenchmarkTasks.THROTTLE + "/s, " + windows + " windows of backlog, beside " + others
                        + " unthrottled no-op runs");
    }

    /** What one drain measured: the throttled task's {@link Steady#ratio}, the unthrottled runs' drain rate. */
    private record Drained(double ratio, double othersPerSecond) {}

    /**
     * Drains {@code throttled} runs of the throttled task and {@code others} unthrottled no-op runs, triggered before
     * the worker starts, on one worker with the default settings.
     */
    private static Drained drain(BenchmarkContext context, int throttled, int others) throws Exception {
        context.resetRuns();
        RunlaneEngine engine = context.engine(ExecutionSettings.defaults());
        trigger(engine, BenchmarkTasks.THROTTLED, throttled, i -> new BenchmarkTasks.ThrottledTask.Payload(i));
        trigger(engine, BenchmarkTasks.NOOP, others, i -> new BenchmarkTasks.NoopTask.Payload(i));
        context.vacuumAnalyzeRunlane();
        long began = System.nanoTime();
        engine.worker().start();
        double othersPerSecond = Double.NaN;
        try {
            long othersDone = awaitSucceeded(context, BenchmarkTasks.NOOP, others, began);
            awaitSucceeded(context, BenchmarkTasks.THROTTLED, throttled, began);
            if (others > 0) {
                othersPerSecond = others / (othersDone / 1e9);
            }
        } finally {
            engine.worker().stop();
        }
        if (throttled == 0) {
            context.progress("throttle: %d unthrottled runs alone drained at %.0f runs/s", others, othersPerSecond);
            return new Drained(Double.NaN, othersPerSecond);
        }
        List<Double> starts = context.jdbc()
                .queryForList(
                        "SELECT extract(epoch FROM e.created_at)::float8 FROM " + BenchmarkContext.SCHEMA
                                + ".run_events e JOIN " + BenchmarkContext.SCHEMA + ".runs r ON r.id = e.run_id"
                                + " WHERE r.task_id = ? AND e.type = 'CLAIMED' ORDER BY e.created_at",
                        Double.class,
                        BenchmarkTasks.THROTTLED);
        Steady steady = Steady.of(starts, BenchmarkTasks.THROTTLE, PERIOD_SECONDS);
        context.progress(
                "throttle: %d starts; after the first window %d over %.3f s: %.1f starts/s of %d/s; a start after its"
                        + " slot freed: median %.1f ms, p90 %.1f ms, max %.1f ms late; beside %d unthrottled runs%s",
                starts.size(),
                steady.starts(),
                steady.seconds(),
                steady.perSecond(),
                BenchmarkTasks.THROTTLE,
                steady.lateMillis(0.5),
                steady.lateMillis(0.9),
                steady.lateMillis(1),
                others,
                others > 0 ? String.format(" drained at %.0f runs/s", othersPerSecond) : "");
        return new Drained(steady.ratio(), othersPerSecond);
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

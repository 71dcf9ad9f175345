package io.runlane.benchmarks;

import io.runlane.PruneRequest;
import io.runlane.PruneResult;
import io.runlane.RunlaneTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Pruning: runs deleted per second by {@code runs().prune(PruneRequest.olderThan(1 day))} over a table of retained
 * finished runs, and the latency of a steady producer's triggers during the prune against the same producer on the
 * same table just before it.
 */
final class PruningScenario implements Scenario {

    @Override
    public String name() {
        return "pruning";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int runs = context.options().size(500_000, 50_000);
        Duration quiet = Duration.ofMillis(context.options().size(5_000, 2_000));
        RetainedRuns retained = new RetainedRuns(context.jdbc(), BenchmarkContext.SCHEMA);
        RunlaneTemplate template = context.engine().template();
        round(context, retained, template, context.options().size(50_000, 5_000), quiet);
        List<Double> perSecond = new ArrayList<>();
        List<Latencies> without = new ArrayList<>();
        List<Latencies> during = new ArrayList<>();
        for (int round = 0; round < context.options().rounds(); round++) {
            Measured measured = round(context, retained, template, runs, quiet);
            perSecond.add(measured.perSecond());
            without.add(measured.without());
            during.add(measured.during());
            context.progress(
                    "pruning, round %d: %,d runs in %.2f s (%.0f/s); trigger p99 %.2f ms without, %.2f ms during",
                    round + 1,
                    runs,
                    runs / measured.perSecond(),
                    measured.perSecond(),
                    measured.without().p99(),
                    measured.during().p99());
        }
        Rounds rate = new Rounds(perSecond);
        report.figure(
                String.format(
                        Locale.ROOT,
                        "runs pruned per second, %,d finished runs (each with 2 stored events and a retained key), batches"
                                + " of %d",
                        runs,
                        PruneRequest.DEFAULT_BATCH_SIZE),
                rate,
                0);
        Latencies.Series quietSeries = new Latencies.Series(
                String.format(Locale.ROOT, "trigger, %,d finished runs retained, not pruning", runs), without);
        Latencies.Series pruningSeries = new Latencies.Series(
                String.format(Locale.ROOT, "trigger, %,d finished runs retained, during pruning", runs), during);
        report.latency(quietSeries);
        report.latency(pruningSeries);
        Rounds ratio = report.ratio(
                "trigger p99 during pruning ÷ without",
                pruningSeries.p99(),
                quietSeries.p99(),
                ResultsWriter.format(pruningSeries.p99().median()) + " ÷ "
                        + ResultsWriter.format(quietSeries.p99().median()) + " ms");
        report.ratio(
                "trigger p50 during pruning ÷ without",
                pruningSeries.p50(),
                quietSeries.p50(),
                ResultsWriter.format(pruningSeries.p50().median()) + " ÷ "
                        + ResultsWriter.format(quietSeries.p50().median()) + " ms");
        report.target(
                Goal.PRUNING_LATENCY,
                ratio,
                ResultsWriter.format(pruningSeries.p99().median()) + " vs "
                        + ResultsWriter.format(quietSeries.p99().median()) + " ms");
        report.note("Pruning: the tables are filled, oldest run first, with one INSERT ... SELECT generate_series"
                + " statement and then VACUUM ANALYZE, as autovacuum would leave a table that has held its history"
                + " for a while. The steady producer triggers one run, pauses 5 ms, and repeats.");
    }

    private record Measured(double perSecond, Latencies without, Latencies during) {}

    private static Measured round(
            BenchmarkContext context, RetainedRuns retained, RunlaneTemplate template, int runs, Duration quiet)
            throws Exception {
        context.resetRuns();
        retained.insert(runs, "pruned-" + UUID.randomUUID() + "-");
        context.vacuumAnalyzeRunlane();
        Latencies without = PacedTriggers.sampleFor(template, quiet);
        PacedTriggers triggers = new PacedTriggers(template);
        triggers.start();
        long began = System.nanoTime();
        PruneResult result;
        long took;
        Latencies during;
        try {
            result = template.runs().prune(PruneRequest.olderThan(Duration.ofDays(1)));
            took = System.nanoTime() - began;
        } finally {
            during = triggers.stop();
        }
        double seconds = took / 1e9;
        if (result.runs() != runs) {
            throw new IllegalStateException("Pruned " + result.runs() + " of " + runs + " finished runs");
        }
        return new Measured(runs / seconds, without, during);
    }
}

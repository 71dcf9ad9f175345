package io.runlane.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * End-to-end: a backlog of no-op jobs drained with 8 threads by Runlane, by a plain JDBC {@code SKIP LOCKED} claim
 * and complete loop, and by db-scheduler, on the same database and pool. Every round enqueues afresh through each
 * system's own API (not timed) and times the drain; rounds take the systems in turn, so drift of the machine affects
 * all alike.
 */
final class EndToEndScenario implements Scenario {

    @Override
    public String name() {
        return "end-to-end";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int jobs = context.options().size(100_000, 10_000);
        int warmUpJobs = context.options().size(10_000, 2_000);
        RunlaneDrain runlane = new RunlaneDrain(context);
        SkipLockedDrain plain = new SkipLockedDrain(context);
        DbSchedulerDrain dbScheduler = new DbSchedulerDrain(context);
        List<Drain> drains = List.of(runlane, plain, dbScheduler);
        for (Drain drain : drains) {
            drain.enqueue(warmUpJobs);
            drain.drain(warmUpJobs);
        }
        Map<Drain, List<Double>> perSecond = new LinkedHashMap<>();
        for (int round = 0; round < context.options().rounds(); round++) {
            for (Drain drain : drains) {
                drain.enqueue(jobs);
                Duration took = drain.drain(jobs);
                double rate = jobs / (took.toNanos() / 1e9);
                perSecond.computeIfAbsent(drain, key -> new ArrayList<>()).add(rate);
                context.progress(
                        "end-to-end, round %d: %s drained %,d jobs in %.2f s (%.0f/s)",
                        round + 1, drain.name(), jobs, took.toNanos() / 1e9, rate);
            }
        }
        Rounds runlaneRounds = new Rounds(perSecond.get(runlane));
        String scenario = String.format(Locale.ROOT, "end-to-end, %,d no-op runs, one instance (runs/s)", jobs);
        Report.Comparison againstPlain =
                report.compare(scenario, Drain.THREADS, runlaneRounds, plain.name(), new Rounds(perSecond.get(plain)));
        Report.Comparison againstDbScheduler = report.compare(
                scenario, Drain.THREADS, runlaneRounds, dbScheduler.name(), new Rounds(perSecond.get(dbScheduler)));
        report.target(
                Goal.END_TO_END_VS_DB_SCHEDULER,
                againstDbScheduler.ratio(),
                ResultsWriter.format(runlaneRounds.median()) + " vs "
                        + ResultsWriter.format(
                                againstDbScheduler.baselineRounds().median()) + " runs/s");
        report.target(
                Goal.END_TO_END_VS_PLAIN_LOOP,
                againstPlain.ratio(),
                ResultsWriter.format(runlaneRounds.median()) + " vs "
                        + ResultsWriter.format(againstPlain.baselineRounds().median()) + " runs/s");
        report.note(String.format(
                Locale.ROOT,
                "End-to-end: each system first drains a warm-up backlog of %,d jobs; db-scheduler deletes a one-time"
                        + " execution when it completes, Runlane keeps the run (with its events) for retention, the"
                        + " plain loop marks the row done.",
                warmUpJobs));
    }
}

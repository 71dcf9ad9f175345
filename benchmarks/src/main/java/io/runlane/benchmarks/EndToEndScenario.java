package io.runlane.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * End-to-end: a backlog of no-op jobs drained with 8 threads by Runlane, by two plain JDBC {@code SKIP LOCKED} claim
 * and complete loops (naive: a commit per completion; batched: one per batch of completions, the floor), and by
 * db-scheduler, on the same database and pool. Every round enqueues afresh through each system's own API (not
 * timed) and times the drain; rounds take the systems in turn (A B C D A B C D ...), so drift of the machine affects
 * all alike, and each ratio is formed round by round.
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
        SkipLockedDrain batched = new SkipLockedDrain(context, true);
        SkipLockedDrain naive = new SkipLockedDrain(context, false);
        DbSchedulerDrain dbScheduler = new DbSchedulerDrain(context);
        List<Drain> drains = List.of(runlane, batched, naive, dbScheduler);
        for (Drain drain : drains) {
            drain.enqueue(warmUpJobs);
            drain.drain(warmUpJobs);
        }
        Map<Drain, List<Double>> perSecond = new LinkedHashMap<>();
        Map<Drain, List<CostMeter.Reading>> cpu = new LinkedHashMap<>();
        for (int round = 0; round < context.options().rounds(); round++) {
            for (Drain drain : drains) {
                drain.enqueue(jobs);
                CostMeter.Reading before = context.costs().read();
                Duration took = drain.drain(jobs);
                cpu.computeIfAbsent(drain, key -> new ArrayList<>())
                        .add(context.costs().read().since(before));
                double rate = jobs / (took.toNanos() / 1e9);
                perSecond.computeIfAbsent(drain, key -> new ArrayList<>()).add(rate);
                context.progress(
                        "end-to-end, round %d: %s drained %,d jobs in %.2f s (%.0f/s)",
                        round + 1, drain.name(), jobs, took.toNanos() / 1e9, rate);
            }
        }
        Rounds runlaneRounds = new Rounds(perSecond.get(runlane));
        String scenario = String.format(Locale.ROOT, "end-to-end, %,d no-op runs, one instance (runs/s)", jobs);
        Report.Comparison againstBatched = report.compare(
                scenario, Drain.THREADS, runlaneRounds, batched.name(), new Rounds(perSecond.get(batched)));
        Report.Comparison againstNaive =
                report.compare(scenario, Drain.THREADS, runlaneRounds, naive.name(), new Rounds(perSecond.get(naive)));
        Report.Comparison againstDbScheduler = report.compare(
                scenario, Drain.THREADS, runlaneRounds, dbScheduler.name(), new Rounds(perSecond.get(dbScheduler)));
        for (Drain drain : drains) {
            costFigures(report, "end-to-end, " + drain.name(), cpu.get(drain), jobs);
        }
        target(report, Goal.END_TO_END_VS_DB_SCHEDULER, againstDbScheduler);
        target(report, Goal.END_TO_END_VS_NAIVE_LOOP, againstNaive);
        target(report, Goal.END_TO_END_VS_BATCHED_LOOP, againstBatched);
        context.progress(
                "end-to-end: Runlane ÷ batched loop %s, ÷ naive loop %s, ÷ db-scheduler %s (per-round ratios)",
                againstBatched.perRound().format(2),
                againstNaive.perRound().format(2),
                againstDbScheduler.perRound().format(2));
        report.note(String.format(
                Locale.ROOT,
                "End-to-end: each system first drains a warm-up backlog of %,d jobs; db-scheduler deletes a one-time"
                        + " execution when it completes, Runlane keeps the run (with its events) for retention, the"
                        + " plain loops mark the row done. The batched plain loop commits twice per batch of up to 8"
                        + " jobs (its claim and its completions), the naive one once per job besides its claim. CPU"
                        + " per 1,000 runs is read from /proc around each timed drain (the database server's"
                        + " processes, when it runs on this machine, and this benchmark process, which also runs the"
                        + " other systems' idle threads), and the WAL from the server's WAL position; neither includes"
                        + " the enqueue or the vacuum before the drain.",
                warmUpJobs));
    }

    /**
     * The database's and this process's CPU time per 1,000 runs, milliseconds (the database's only when the server
     * runs on this machine), and the WAL per run, from the readings taken around each round.
     */
    static void costFigures(Report report, String subject, List<CostMeter.Reading> readings, int runs) {
        if (readings.stream().allMatch(reading -> reading.database() != null)) {
            report.figure(
                    subject + ": database server CPU per 1,000 runs (ms)",
                    new Rounds(readings.stream()
                            .map(reading -> reading.database() * 1e6 / runs)
                            .toList()),
                    0);
        }
        report.figure(
                subject + ": benchmark process CPU per 1,000 runs (ms)",
                new Rounds(readings.stream()
                        .map(reading -> reading.application() * 1e6 / runs)
                        .toList()),
                0);
        report.figure(
                subject + ": WAL per run (bytes)",
                new Rounds(readings.stream()
                        .map(reading -> reading.walBytes() / runs)
                        .toList()),
                0);
    }

    private static void target(Report report, Goal goal, Report.Comparison comparison) {
        report.target(
                goal,
                comparison.perRound(),
                ResultsWriter.format(comparison.runlane().median()) + " vs "
                        + ResultsWriter.format(comparison.baselineRounds().median()) + " runs/s");
    }
}

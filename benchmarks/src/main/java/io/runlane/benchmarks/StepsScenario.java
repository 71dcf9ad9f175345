package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerRequest;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

/**
 * Per-step overhead: backlogs of a task with 1 no-op durable step and of one with 10, drained with 8 worker threads.
 * Every step is recorded, fenced by its attempt's claim, and committed before it returns (S-ST-3), in a commit that
 * steps other runs record at the same moment share (S-ST-16), so the difference between the two is the cost of nine
 * recorded steps: in thread time, and in the CPU time of the database server and of this process and in WAL, which
 * the other work on a shared machine does not inflate. Each step call is also timed inside the handler (look-up, call,
 * record). The same workflows run in DBOS Transact in alternating rounds (Runlane's round, then DBOS's), so that the
 * ratio is formed round by round; DBOS is launched for each of its rounds and shut down after, so it never runs beside
 * Runlane. When DBOS cannot run here, the results say why.
 */
final class StepsScenario implements Scenario {

    @Override
    public String name() {
        return "steps";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int jobs = context.options().size(5_000, 1_000);
        int warmUp = context.options().size(500, 200);
        Side runlane = new Side();
        Side dbos = new Side();
        boolean dbosRuns = true;
        drain(context, warmUp, 10, new ArrayList<>());
        try {
            for (int round = 0; round < context.options().rounds(); round++) {
                runlane.oneStep.add(drain(context, jobs, 1, runlane.oneStepCosts));
                BenchmarkTasks.StepsTask.STEP_NANOS.clear();
                runlane.tenSteps.add(drain(context, jobs, 10, runlane.tenStepsCosts));
                runlane.stepCalls.add(latencies(BenchmarkTasks.StepsTask.STEP_NANOS));
                context.progress(
                        "steps, round %d: 1 step %.0f runs/s, 10 steps %.0f runs/s, step call p50 %.3f ms",
                        round + 1,
                        runlane.oneStep.get(round),
                        runlane.tenSteps.get(round),
                        runlane.stepCalls.get(round).p50());
                dbosRuns = dbosRuns && dbosRound(context, report, dbos, jobs, warmUp, round);
            }
        } finally {
            context.jdbc().execute("DROP SCHEMA IF EXISTS " + DbosSteps.SCHEMA + " CASCADE");
        }
        String scenario = String.format(Locale.ROOT, "%,d runs, 8 worker threads (runs/s)", jobs);
        report.figure("steps: task with 1 durable step, " + scenario, new Rounds(runlane.oneStep), 0);
        Rounds runlaneTenSteps = new Rounds(runlane.tenSteps);
        report.figure("steps: task with 10 durable steps, " + scenario, runlaneTenSteps, 0);
        Latencies.Series runlaneCalls =
                new Latencies.Series("one durable step call, 10-step task, 8 threads", runlane.stepCalls);
        report.latency(runlaneCalls);
        report.figure("steps: thread time per additional durable step (ms)", runlane.perStep(), 3);
        runlane.costFigures(report, "steps: ", "durable step", jobs);
        if (dbosRuns) {
            reportDbos(report, jobs, dbos, runlaneTenSteps, runlaneCalls.p50());
        }
    }

    /**
     * One system's rounds: 1-step and 10-step runs per second, what each drain cost the database and this process, and
     * the step calls of each 10-step round.
     */
    private static final class Side {

        private final List<Double> oneStep = new ArrayList<>();

        private final List<Double> tenSteps = new ArrayList<>();

        private final List<CostMeter.Reading> oneStepCosts = new ArrayList<>();

        private final List<CostMeter.Reading> tenStepsCosts = new ArrayList<>();

        private final List<Latencies> stepCalls = new ArrayList<>();

        /**
         * The database server's CPU (when it runs on this machine), this process's CPU and the WAL that nine more steps
         * per run cost, per step: the difference between a 10-step drain and a 1-step drain of as many runs, round by
         * round. Unlike thread time, CPU time does not grow with the other work on a shared machine.
         */
        void costFigures(Report report, String prefix, String step, int jobs) {
            if (oneStepCosts.size() != oneStep.size() || tenStepsCosts.size() != tenSteps.size()) {
                return;
            }
            if (oneStepCosts.stream().allMatch(reading -> reading.database() != null)
                    && tenStepsCosts.stream().allMatch(reading -> reading.database() != null)) {
                report.figure(
                        prefix + "database server CPU per additional " + step + " (ms)",
                        perStep(reading -> reading.database() * 1000, jobs),
                        3);
            }
            report.figure(
                    prefix + "benchmark process CPU per additional " + step + " (ms)",
                    perStep(reading -> reading.application() * 1000, jobs),
                    3);
            report.figure(
                    prefix + "WAL per additional " + step + " (bytes)", perStep(CostMeter.Reading::walBytes, jobs), 0);
        }

        private Rounds perStep(ToDoubleFunction<CostMeter.Reading> amount, int jobs) {
            List<Double> perStep = new ArrayList<>();
            for (int i = 0; i < oneStepCosts.size(); i++) {
                perStep.add((amount.applyAsDouble(tenStepsCosts.get(i)) - amount.applyAsDouble(oneStepCosts.get(i)))
                        / jobs
                        / 9);
            }
            return new Rounds(perStep);
        }

        /** 8 threads drain in parallel: thread time per run is 8 / rate; nine more steps explain the difference. */
        Rounds perStep() {
            List<Double> perStep = new ArrayList<>();
            for (int i = 0; i < oneStep.size(); i++) {
                perStep.add((Drain.THREADS / tenSteps.get(i) - Drain.THREADS / oneStep.get(i)) * 1000 / 9);
            }
            return new Rounds(perStep);
        }
    }

    private static Latencies latencies(Queue<Long> nanos) {
        return new Latencies(nanos.stream().map(value -> value / 1e6).toList());
    }

    /**
     * DBOS's round next to Runlane's: DBOS Transact is launched on the benchmark's pool, warmed up, measured and shut
     * down again, so that it is not running during Runlane's rounds. Returns whether it ran; on a failure it is
     * noted with the reason, and left out of the later rounds.
     */
    private static boolean dbosRound(
            BenchmarkContext context, Report report, Side side, int jobs, int warmUp, int round) {
        context.jdbc().execute("DROP SCHEMA IF EXISTS " + DbosSteps.SCHEMA + " CASCADE");
        DbosSteps dbos = null;
        try {
            dbos = new DbosSteps(context.pool());
            dbos.drain(warmUp, 10);
            CostMeter.Reading before = context.costs().read();
            side.oneStep.add(dbos.drain(jobs, 1));
            side.oneStepCosts.add(context.costs().read().since(before));
            DbosSteps.STEP_NANOS.clear();
            before = context.costs().read();
            side.tenSteps.add(dbos.drain(jobs, 10));
            side.tenStepsCosts.add(context.costs().read().since(before));
            side.stepCalls.add(latencies(DbosSteps.STEP_NANOS));
            context.progress(
                    "steps, DBOS round %d: 1 step %.0f workflows/s, 10 steps %.0f workflows/s",
                    round + 1, side.oneStep.get(round), side.tenSteps.get(round));
            dbos.close();
            return true;
        } catch (Exception | LinkageError ex) {
            dbosFailed(context, report, dbos, ex);
            return false;
        }
    }

    private static void dbosFailed(BenchmarkContext context, Report report, DbosSteps dbos, Throwable ex) {
        if (dbos != null) {
            try {
                dbos.close();
            } catch (RuntimeException closing) {
                ex.addSuppressed(closing);
            }
        }
        report.note("Steps: the DBOS Transact comparison did not run: " + ex);
        for (Goal goal : List.of(Goal.STEPS_VS_DBOS, Goal.STEPS_VS_DBOS_DOUBLED)) {
            report.notMeasured(goal, "not measured: DBOS Transact could not run here (see the notes)");
        }
        context.progress("steps: DBOS Transact did not run: %s", ex);
    }

    /**
     * The DBOS Transact figures and the target, which compares 10-step runs per second round by round; the note
     * compares the p50 of one step call inside a 10-step run on 8 threads.
     */
    private static void reportDbos(Report report, int jobs, Side dbos, Rounds runlaneTenSteps, Rounds runlaneStepP50) {
        String scenario = String.format(Locale.ROOT, "%,d workflows, 8 threads (workflows/s)", jobs);
        Latencies.Series dbosCalls =
                new Latencies.Series("DBOS Transact: one step call, 10-step workflow", dbos.stepCalls);
        report.latency(dbosCalls);
        report.figure("steps: DBOS Transact, workflow with 1 step, " + scenario, new Rounds(dbos.oneStep), 0);
        Rounds dbosTenSteps = new Rounds(dbos.tenSteps);
        report.figure("steps: DBOS Transact, workflow with 10 steps, " + scenario, dbosTenSteps, 0);
        String detail = ResultsWriter.format(runlaneTenSteps.median()) + " vs "
                + ResultsWriter.format(dbosTenSteps.median())
                + " 10-step runs/s; Runlane drains a backlog through its worker, DBOS's 8 threads call the workflow"
                + " directly; their rounds alternate";
        Rounds againstDbos = runlaneTenSteps.dividedBy(dbosTenSteps);
        report.target(Goal.STEPS_VS_DBOS, againstDbos, detail);
        report.target(Goal.STEPS_VS_DBOS_DOUBLED, againstDbos, detail);
        report.figure("steps: DBOS Transact, thread time per additional step (ms)", dbos.perStep(), 3);
        dbos.costFigures(report, "steps: DBOS Transact, ", "step", jobs);
        report.note(String.format(
                Locale.ROOT,
                "Steps: Runlane's p50 step call is %.2f × DBOS Transact's (%.3f vs %.3f ms, 10-step runs on 8"
                        + " threads); both commit every step before it returns, DBOS Transact in a transaction of"
                        + " its own, Runlane in one shared with the steps other runs record at the same moment"
                        + " (S-ST-16). DBOS is launched (and warmed up) for each of its rounds and shut down before"
                        + " Runlane's next.",
                runlaneStepP50.median() / dbosCalls.p50().median(),
                runlaneStepP50.median(),
                dbosCalls.p50().median()));
    }

    /**
     * Enqueues {@code jobs} runs of a task with {@code steps} steps, drains them, and returns runs per second; adds
     * what the drain cost (not the enqueue) to {@code costs}.
     */
    private static double drain(BenchmarkContext context, int jobs, int steps, List<CostMeter.Reading> costs)
            throws InterruptedException {
        context.resetRuns();
        RunlaneTemplate template = context.engine().template();
        for (int from = 0; from < jobs; from += 1_000) {
            template.triggerAll(IntStream.range(from, Math.min(jobs, from + 1_000))
                    .mapToObj(i ->
                            TriggerRequest.of(BenchmarkTasks.STEPS, new BenchmarkTasks.StepsTask.Payload(i, steps)))
                    .toList());
        }
        context.vacuumAnalyzeRunlane();
        RunlaneEngine engine =
                context.engine(ExecutionSettings.defaults().withWorker(Drain.THREADS, Duration.ofMillis(100)));
        String remaining = "SELECT count(*) FROM " + BenchmarkContext.SCHEMA + ".runs WHERE task_id = '"
                + BenchmarkTasks.STEPS + "' AND finished_at IS NULL";
        long before = BenchmarkTasks.StepsTask.EXECUTED.get();
        CostMeter.Reading cost = context.costs().read();
        long began = System.nanoTime();
        engine.worker().start();
        try {
            Drain.awaitDrained(
                    () -> BenchmarkTasks.StepsTask.EXECUTED.get() - before,
                    jobs,
                    () -> context.jdbc().queryForObject(remaining, Long.class) == 0);
            double rate = jobs / ((System.nanoTime() - began) / 1e9);
            costs.add(context.costs().read().since(cost));
            return rate;
        } finally {
            engine.worker().stop();
        }
    }
}

package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerRequest;
import io.runlane.internal.ExecutionSettings;
import io.runlane.internal.RunlaneEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Per-step overhead: backlogs of a task with 1 no-op durable step and of one with 10, drained with 8 worker threads.
 * Every step is recorded in its own fenced transaction (S-ST-3), so the difference between the two is the cost of
 * nine recorded steps; each step call is also timed inside the handler (look-up, call, record).
 */
final class StepsScenario implements Scenario {

    @Override
    public String name() {
        return "steps";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int jobs = context.options().size(5_000, 1_000);
        drain(context, context.options().size(500, 200), 10);
        List<Double> oneStep = new ArrayList<>();
        List<Double> tenSteps = new ArrayList<>();
        List<Latencies> stepCalls = new ArrayList<>();
        for (int round = 0; round < context.options().rounds(); round++) {
            oneStep.add(drain(context, jobs, 1));
            BenchmarkTasks.StepsTask.STEP_NANOS.clear();
            tenSteps.add(drain(context, jobs, 10));
            stepCalls.add(new Latencies(BenchmarkTasks.StepsTask.STEP_NANOS.stream()
                    .map(nanos -> nanos / 1e6)
                    .toList()));
            context.progress(
                    "steps, round %d: 1 step %.0f runs/s, 10 steps %.0f runs/s, step call p50 %.3f ms",
                    round + 1,
                    oneStep.get(round),
                    tenSteps.get(round),
                    stepCalls.get(round).p50());
        }
        String scenario = String.format(Locale.ROOT, "%,d runs, 8 worker threads (runs/s)", jobs);
        report.figure("steps: task with 1 durable step, " + scenario, new Rounds(oneStep), 0);
        report.figure("steps: task with 10 durable steps, " + scenario, new Rounds(tenSteps), 0);
        report.latency(new Latencies.Series("one durable step call, 10-step task, 8 threads", stepCalls));
        List<Double> perStep = new ArrayList<>();
        for (int i = 0; i < oneStep.size(); i++) {
            // 8 threads drain in parallel: thread time per run is 8 / rate; nine more steps explain the difference.
            perStep.add((Drain.THREADS / tenSteps.get(i) - Drain.THREADS / oneStep.get(i)) * 1000 / 9);
        }
        Rounds runlanePerStep = new Rounds(perStep);
        report.figure("steps: thread time per additional durable step (ms)", runlanePerStep, 3);
        compareWithDbos(context, report, jobs, new Rounds(tenSteps), new Latencies.Series("", stepCalls).p50());
    }

    /**
     * The same 1-step and 10-step workflows in DBOS Transact; reported as a note, with the reason, when DBOS cannot
     * run here. The target compares 10-step runs per second; the note compares the p50 of one step call inside a
     * 10-step run on 8 threads.
     */
    private static void compareWithDbos(
            BenchmarkContext context, Report report, int jobs, Rounds runlaneTenSteps, Rounds runlaneStepP50) {
        context.jdbc().execute("DROP SCHEMA IF EXISTS " + DbosSteps.SCHEMA + " CASCADE");
        try (DbosSteps dbos = new DbosSteps(context.pool())) {
            dbos.drain(context.options().size(500, 200), 10);
            List<Double> oneStep = new ArrayList<>();
            List<Double> tenSteps = new ArrayList<>();
            List<Double> perStep = new ArrayList<>();
            List<Latencies> stepCalls = new ArrayList<>();
            for (int round = 0; round < context.options().rounds(); round++) {
                oneStep.add(dbos.drain(jobs, 1));
                DbosSteps.STEP_NANOS.clear();
                tenSteps.add(dbos.drain(jobs, 10));
                stepCalls.add(new Latencies(
                        DbosSteps.STEP_NANOS.stream().map(nanos -> nanos / 1e6).toList()));
                perStep.add((Drain.THREADS / tenSteps.get(round) - Drain.THREADS / oneStep.get(round)) * 1000 / 9);
                context.progress(
                        "steps, DBOS round %d: 1 step %.0f workflows/s, 10 steps %.0f workflows/s",
                        round + 1, oneStep.get(round), tenSteps.get(round));
            }
            String scenario = String.format(Locale.ROOT, "%,d workflows, 8 threads (workflows/s)", jobs);
            Latencies.Series dbosCalls =
                    new Latencies.Series("DBOS Transact: one step call, 10-step workflow", stepCalls);
            report.latency(dbosCalls);
            report.figure("steps: DBOS Transact, workflow with 1 step, " + scenario, new Rounds(oneStep), 0);
            Rounds dbosTenSteps = new Rounds(tenSteps);
            report.figure("steps: DBOS Transact, workflow with 10 steps, " + scenario, dbosTenSteps, 0);
            report.target(
                    Goal.STEPS_VS_DBOS,
                    runlaneTenSteps.median() / dbosTenSteps.median(),
                    ResultsWriter.format(runlaneTenSteps.median()) + " vs "
                            + ResultsWriter.format(dbosTenSteps.median())
                            + " 10-step runs/s; Runlane drains a backlog through its worker, DBOS's 8 threads call"
                            + " the workflow directly");
            Rounds dbosPerStep = new Rounds(perStep);
            report.figure("steps: DBOS Transact, thread time per additional step (ms)", dbosPerStep, 3);
            report.note(String.format(
                    Locale.ROOT,
                    "Steps: Runlane's p50 step call is %.2f × DBOS Transact's (%.3f vs %.3f ms, 10-step runs on 8"
                            + " threads); both record every step in its own transaction before it returns.",
                    runlaneStepP50.median() / dbosCalls.p50().median(),
                    runlaneStepP50.median(),
                    dbosCalls.p50().median()));
        } catch (Exception | LinkageError ex) {
            report.note("Steps: the DBOS Transact comparison did not run: " + ex);
            report.notMeasured(Goal.STEPS_VS_DBOS, "not measured: DBOS Transact could not run here (see the notes)");
            context.progress("steps: DBOS Transact did not run: %s", ex);
        } finally {
            context.jdbc().execute("DROP SCHEMA IF EXISTS " + DbosSteps.SCHEMA + " CASCADE");
        }
    }

    /** Enqueues {@code jobs} runs of a task with {@code steps} steps, drains them, and returns runs per second. */
    private static double drain(BenchmarkContext context, int jobs, int steps) throws InterruptedException {
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
        long began = System.nanoTime();
        engine.worker().start();
        try {
            Drain.awaitDrained(
                    () -> BenchmarkTasks.StepsTask.EXECUTED.get() - before,
                    jobs,
                    () -> context.jdbc().queryForObject(remaining, Long.class) == 0);
            return jobs / ((System.nanoTime() - began) / 1e9);
        } finally {
            engine.worker().stop();
        }
    }
}

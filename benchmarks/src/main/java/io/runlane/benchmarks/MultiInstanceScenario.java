package io.runlane.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerRequest;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * End-to-end with several application instances on one database and schema: the same backlog of no-op runs drained
 * by 1, 2 and 3 engines, each on a connection pool of its own with its own worker of 8 slots, as separate processes
 * would. Rounds take the instance counts in turn (1 2 3 1 2 3 ...), and each ratio to one instance is formed round by
 * round. Every handler execution is counted per run id: a run executed more than once is a re-execution, which
 * misses the target whatever the throughput.
 */
final class MultiInstanceScenario implements Scenario {

    private static final int[] INSTANCES = {1, 2, 3};

    /**
     * Connections per instance: the worker's 8 slots, its poller, heartbeat, listener and completion writer, and the
     * notifier, with room to spare; maintenance, pruning and schedules are not started here.
     */
    private static final int POOL_SIZE = 16;

    private static final int TRIGGER_BATCH = 1_000;

    @Override
    public String name() {
        return "multi-instance";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int jobs = context.options().size(100_000, 5_000);
        int warmUpJobs = context.options().size(10_000, 2_000);
        int most = INSTANCES[INSTANCES.length - 1];
        List<HikariDataSource> pools = new ArrayList<>();
        try {
            for (int i = 0; i < most; i++) {
                pools.add(context.newPool(POOL_SIZE));
            }
            RunlaneTemplate template = context.engine().template();
            long warmUpReExecutions = 0;
            for (int instances : INSTANCES) {
                warmUpReExecutions += drain(context, template, pools.subList(0, instances), warmUpJobs)
                        .reExecutions();
            }
            List<List<Double>> rates = new ArrayList<>();
            List<List<Double>> reExecutions = new ArrayList<>();
            List<List<CostMeter.Reading>> costs = new ArrayList<>();
            List<CostMeter.Reading> triggerCosts = new ArrayList<>();
            for (int ignored : INSTANCES) {
                rates.add(new ArrayList<>());
                reExecutions.add(new ArrayList<>());
                costs.add(new ArrayList<>());
            }
            for (int round = 0; round < context.options().rounds(); round++) {
                for (int i = 0; i < INSTANCES.length; i++) {
                    int instances = INSTANCES[i];
                    Drained drained = drain(context, template, pools.subList(0, instances), jobs);
                    rates.get(i).add(drained.perSecond());
                    reExecutions.get(i).add((double) drained.reExecutions());
                    costs.get(i).add(drained.costs());
                    triggerCosts.add(drained.triggerCosts());
                    context.progress(
                            "multi-instance, round %d: %d instance%s drained %,d runs at %.0f/s, %d re-executions",
                            round + 1,
                            instances,
                            instances == 1 ? "" : "s",
                            jobs,
                            drained.perSecond(),
                            drained.reExecutions());
                }
            }
            report(report, jobs, rates, reExecutions, warmUpReExecutions);
            for (int i = 0; i < INSTANCES.length; i++) {
                EndToEndScenario.costFigures(report, "multi-instance, " + label(INSTANCES[i]), costs.get(i), jobs);
            }
            EndToEndScenario.costFigures(
                    report, "multi-instance, triggering the backlog (triggerAll, 1,000 per call)", triggerCosts, jobs);
        } finally {
            pools.forEach(HikariDataSource::close);
        }
    }

    /**
     * The throughput of each instance count, its re-executions, the ratios to one instance, and the target: 3
     * instances ÷ 1, missed by any re-execution, the warm-ups' included.
     */
    private static void report(
            Report report, int jobs, List<List<Double>> rates, List<List<Double>> reExecutions, long warmUps) {
        List<Rounds> throughput = rates.stream().map(Rounds::new).toList();
        long total = warmUps;
        for (int i = 0; i < INSTANCES.length; i++) {
            String instances = label(INSTANCES[i]);
            report.figure(
                    String.format(
                            Locale.ROOT,
                            "multi-instance: end-to-end, %,d no-op runs, %s of %d worker threads, one pool each, one"
                                    + " schema (runs/s)",
                            jobs,
                            instances,
                            Drain.THREADS),
                    throughput.get(i),
                    0);
            Rounds repeated = new Rounds(reExecutions.get(i));
            report.figure(
                    "multi-instance: re-executions (handler executions beyond one per run id), " + instances,
                    repeated,
                    0);
            total += Math.round(
                    repeated.values().stream().mapToDouble(Double::doubleValue).sum());
        }
        List<Rounds> toOne = new ArrayList<>();
        for (int i = 1; i < INSTANCES.length; i++) {
            toOne.add(report.ratio(
                    String.format(Locale.ROOT, "end-to-end, %d instances ÷ 1 instance (runs/s)", INSTANCES[i]),
                    throughput.get(i),
                    throughput.get(0),
                    ResultsWriter.format(throughput.get(i).median()) + " ÷ "
                            + ResultsWriter.format(throughput.get(0).median()) + " runs/s"));
        }
        int most = INSTANCES[INSTANCES.length - 1];
        report.target(
                Goal.MULTI_INSTANCE,
                toOne.get(toOne.size() - 1),
                String.format(
                        Locale.ROOT,
                        "%s vs %s runs/s; %,d re-executions in %d drains of %,d runs and the warm-ups",
                        ResultsWriter.format(
                                throughput.get(INSTANCES.length - 1).median()),
                        ResultsWriter.format(throughput.get(0).median()),
                        total,
                        INSTANCES.length * rates.get(0).size(),
                        jobs),
                total == 0 ? null : String.format(Locale.ROOT, "%,d re-executions", total));
        report.note(String.format(
                Locale.ROOT,
                "Multi-instance: 1 to %d RunlaneEngines on one schema, each with a pool of %d connections and a worker"
                        + " of %d slots polling every 100 ms, so %d instances have %d slots in all; the backlog is"
                        + " triggered in batches of %,d (not timed) and every worker starts at once. All of them share"
                        + " this machine's cores with the database.",
                most,
                POOL_SIZE,
                Drain.THREADS,
                most,
                most * Drain.THREADS,
                TRIGGER_BATCH));
    }

    private static String label(int instances) {
        return instances == 1 ? "1 instance" : instances + " instances";
    }

    /**
     * One drain: runs per second, executions beyond one per run, what the drain cost and what triggering its backlog
     * cost (CPU time and WAL).
     */
    private record Drained(
            double perSecond, long reExecutions, CostMeter.Reading costs, CostMeter.Reading triggerCosts) {}

    /**
     * Triggers {@code jobs} runs, starts one engine on each pool, waits until every run is finished, and stops them;
     * returns the runs per second and the executions beyond one per run.
     */
    private static Drained drain(
            BenchmarkContext context, RunlaneTemplate template, List<HikariDataSource> pools, int jobs)
            throws InterruptedException {
        context.resetRuns();
        CostMeter.Reading beforeTriggers = context.costs().read();
        for (int from = 0; from < jobs; from += TRIGGER_BATCH) {
            template.triggerAll(IntStream.range(from, Math.min(jobs, from + TRIGGER_BATCH))
                    .mapToObj(i -> TriggerRequest.of(BenchmarkTasks.COUNTED, new BenchmarkTasks.CountedTask.Payload(i)))
                    .toList());
        }
        CostMeter.Reading triggerCosts = context.costs().read().since(beforeTriggers);
        context.vacuumAnalyzeRunlane();
        BenchmarkTasks.CountedTask.EXECUTIONS.clear();
        ExecutionSettings execution = ExecutionSettings.defaults().withWorker(Drain.THREADS, Duration.ofMillis(100));
        List<RunlaneEngine> engines = pools.stream()
                .map(pool -> context.engine(pool, BenchmarkContext.SCHEMA, execution))
                .toList();
        String remaining = "SELECT count(*) FROM " + BenchmarkContext.SCHEMA + ".runs WHERE task_id = '"
                + BenchmarkTasks.COUNTED + "' AND finished_at IS NULL";
        long before = BenchmarkTasks.CountedTask.EXECUTED.get();
        CostMeter.Reading costsBefore = context.costs().read();
        long began = System.nanoTime();
        long took;
        CostMeter.Reading costs;
        try {
            engines.forEach(engine -> engine.worker().start());
            Drain.awaitDrained(
                    () -> BenchmarkTasks.CountedTask.EXECUTED.get() - before,
                    jobs,
                    () -> context.jdbc().queryForObject(remaining, Long.class) == 0);
            took = System.nanoTime() - began;
            costs = context.costs().read().since(costsBefore);
        } finally {
            engines.forEach(RunlaneEngine::close);
        }
        int executedRuns = BenchmarkTasks.CountedTask.EXECUTIONS.size();
        if (executedRuns != jobs) {
            throw new IllegalStateException("Handlers ran " + executedRuns + " of " + jobs + " runs");
        }
        long reExecutions = BenchmarkTasks.CountedTask.EXECUTIONS.values().stream()
                .mapToLong(count -> count - 1)
                .sum();
        return new Drained(jobs / (took / 1e9), reExecutions, costs, triggerCosts);
    }
}

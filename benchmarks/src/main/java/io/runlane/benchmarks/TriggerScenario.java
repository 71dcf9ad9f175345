package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.util.List;
import java.util.UUID;

/**
 * Triggers of new runs, each with its own idempotency key, at 1, 4 and 16 threads, against a plain JDBC single-row
 * insert of the same payload with its own commit: the least a durable trigger can cost.
 */
final class TriggerScenario implements Scenario {

    private static final int[] THREADS = {1, 4, 16};

    private static final int TARGET_THREADS = 4;

    /** The threads of the round whose costs per trigger (CPU time and WAL) are reported. */
    private static final int COST_THREADS = 16;

    /**
     * One more round of Runlane's triggers, read with the {@link CostMeter}: the database's and this process's CPU time
     * per 1,000 triggers and the WAL per trigger, which the load of a shared machine does not distort as it does
     * throughput.
     */
    private static void measureCosts(BenchmarkContext context, Report report, RunlaneTemplate runlane, String prefix)
            throws Exception {
        CostMeter.Reading before = context.costs().read();
        long began = System.nanoTime();
        double perSecond = Measurement.throughput(
                COST_THREADS,
                context.options().roundMillis(),
                (worker, sequence) -> runlane.trigger(
                        BenchmarkTasks.ORDER,
                        new BenchmarkTasks.OrderTask.Payload(prefix + "cpu-" + sequence),
                        TriggerOptions.none()));
        CostMeter.Reading used = context.costs().read().since(before);
        double triggers = perSecond * (System.nanoTime() - began) / 1e9;
        EndToEndScenario.costFigures(
                report, "trigger, new runs with idempotency keys, " + COST_THREADS + " threads", List.of(used), (int)
                        Math.round(triggers));
    }

    @Override
    public String name() {
        return "trigger, new runs";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        RunlaneTemplate runlane = context.engine().template();
        String insert =
                "INSERT INTO " + BenchmarkContext.SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))";
        String prefix = "new-" + UUID.randomUUID() + "-";
        for (int threads : THREADS) {
            Rounds[] measured = Measurement.compare(
                    context.options(),
                    threads,
                    (worker, sequence) -> runlane.trigger(
                            BenchmarkTasks.ORDER,
                            new BenchmarkTasks.OrderTask.Payload(prefix + sequence),
                            TriggerOptions.none()),
                    (worker, sequence) -> context.jdbc()
                            .update(insert, UUID.randomUUID(), "{\"orderId\":\"" + prefix + sequence + "\"}"));
            Report.Comparison comparison = report.compare(
                    "trigger, new runs with idempotency keys (runs/s)",
                    threads,
                    measured[0],
                    "JDBC single-row insert + commit",
                    measured[1]);
            context.progress(
                    "trigger, new runs, %s: Runlane %s/s, JDBC insert %s/s",
                    threads == 1 ? "1 thread" : threads + " threads", measured[0].format(0), measured[1].format(0));
            if (threads == COST_THREADS) {
                measureCosts(context, report, runlane, prefix);
            }
            if (threads == TARGET_THREADS) {
                report.target(
                        Goal.TRIGGER_VS_INSERT,
                        comparison.perRound(),
                        ResultsWriter.format(measured[0].median()) + " vs " + ResultsWriter.format(measured[1].median())
                                + " runs/s");
            }
        }
    }
}

package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.util.UUID;

/**
 * Triggers of new runs, each with its own idempotency key, at 1, 4 and 16 threads, against a plain JDBC single-row
 * insert of the same payload with its own commit: the least a durable trigger can cost.
 */
final class TriggerScenario implements Scenario {

    private static final int[] THREADS = {1, 4, 16};

    private static final int TARGET_THREADS = 4;

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
            if (threads == TARGET_THREADS) {
                report.target(
                        Goal.TRIGGER_VS_INSERT,
                        comparison.ratio(),
                        ResultsWriter.format(measured[0].median()) + " vs " + ResultsWriter.format(measured[1].median())
                                + " runs/s");
            }
        }
    }
}

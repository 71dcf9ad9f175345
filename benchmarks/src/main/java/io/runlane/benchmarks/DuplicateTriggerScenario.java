package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Triggers whose idempotency key already has an active owner ({@code RETURNED_EXISTING}), against a plain JDBC
 * primary-key lookup of a row of the same shape: answering a duplicate is at best one indexed read.
 */
final class DuplicateTriggerScenario implements Scenario {

    private static final int THREADS = 4;

    private static final int KEYS = 1_000;

    @Override
    public String name() {
        return "trigger, duplicates";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        RunlaneTemplate runlane = context.engine().template();
        String prefix = "dup-" + UUID.randomUUID() + "-";
        List<UUID> baselineIds = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            runlane.trigger(BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(prefix + i));
            UUID id = UUID.randomUUID();
            context.jdbc()
                    .update(
                            "INSERT INTO " + BenchmarkContext.SCHEMA
                                    + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))",
                            id,
                            "{\"orderId\":\"" + prefix + i + "\"}");
            baselineIds.add(id);
        }
        context.vacuumAnalyzeRunlane();
        String lookup =
                "SELECT id, payload::text, created_at FROM " + BenchmarkContext.SCHEMA + ".baseline WHERE id = ?";
        Rounds[] measured = Measurement.compare(
                context.options(),
                THREADS,
                (worker, sequence) -> runlane.trigger(
                        BenchmarkTasks.ORDER,
                        new BenchmarkTasks.OrderTask.Payload(
                                prefix + ThreadLocalRandom.current().nextInt(KEYS)),
                        TriggerOptions.none()),
                (worker, sequence) -> context.jdbc()
                        .queryForMap(
                                lookup,
                                baselineIds.get(ThreadLocalRandom.current().nextInt(KEYS))));
        Report.Comparison comparison = report.compare(
                "trigger, duplicates: RETURNED_EXISTING (triggers/s)",
                THREADS,
                measured[0],
                "JDBC primary-key lookup",
                measured[1]);
        context.progress(
                "trigger, duplicates, %d threads: Runlane %s/s, JDBC lookup %s/s",
                THREADS, measured[0].format(0), measured[1].format(0));
        report.target(
                Goal.DUPLICATE_VS_LOOKUP,
                comparison.perRound(),
                ResultsWriter.format(measured[0].median()) + " vs " + ResultsWriter.format(measured[1].median())
                        + " per s");
    }
}

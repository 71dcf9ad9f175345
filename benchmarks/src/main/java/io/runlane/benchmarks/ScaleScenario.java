package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Scale: does a long history slow the hot path? Two Runlane schemas side by side, one holding few and one holding
 * many retained finished runs, measured in alternating rounds so that drift of the machine affects both alike. One
 * sample triggers a new run with an idempotency key (timed), claims it with {@code claims().claimDue} as a worker
 * would (timed), and completes it (not timed).
 */
final class ScaleScenario implements Scenario {

    private static final String SMALL_SCHEMA = BenchmarkContext.SCHEMA + "_small";

    private static final String LARGE_SCHEMA = BenchmarkContext.SCHEMA + "_large";

    private static final String WORKER = "bench-scale";

    @Override
    public String name() {
        return "scale";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int samples = context.options().size(1_000, 200);
        int warmUp = context.options().size(300, 50);
        Table small = Table.fill(context, SMALL_SCHEMA, 10_000);
        Table large = Table.fill(context, LARGE_SCHEMA, context.options().size(10_000_000, 100_000));
        report.note(String.format(
                Locale.ROOT,
                "Scale: the tables are filled as for pruning, with their indexes dropped during the load and created"
                        + " again from their catalog definitions; %,d finished runs took %.0f s (index builds"
                        + " included), then VACUUM ANALYZE took %.0f s.",
                large.retained,
                large.fillSeconds,
                large.vacuumSeconds));
        small.sample(warmUp);
        large.sample(warmUp);
        for (int round = 0; round < context.options().rounds(); round++) {
            small.sample(samples);
            large.sample(samples);
        }
        Measured atSmall = small.measured();
        Measured atLarge = large.measured();
        for (Measured measured : List.of(atSmall, atLarge)) {
            context.progress(
                    "scale, %s: trigger p50 %s ms, p99 %s ms; claim p50 %s ms, p99 %s ms",
                    measured.label(),
                    measured.trigger().p50().format(2),
                    measured.trigger().p99().format(2),
                    measured.claim().p50().format(2),
                    measured.claim().p99().format(2));
        }
        List.of(atSmall.trigger(), atLarge.trigger(), atSmall.claim(), atLarge.claim())
                .forEach(report::latency);
        String sizes = String.format(Locale.ROOT, "%,d ÷ %,d retained", large.retained, small.retained);
        Rounds trigger = ratio(
                report,
                "trigger p50",
                sizes,
                atLarge.trigger().p50(),
                atSmall.trigger().p50());
        ratio(
                report,
                "trigger p99",
                sizes,
                atLarge.trigger().p99(),
                atSmall.trigger().p99());
        Rounds claim = ratio(
                report,
                "claim p50",
                sizes,
                atLarge.claim().p50(),
                atSmall.claim().p50());
        ratio(report, "claim p99", sizes, atLarge.claim().p99(), atSmall.claim().p99());
        target(report, Goal.SCALE_TRIGGER, trigger, sizes, atLarge.trigger(), atSmall.trigger());
        target(report, Goal.SCALE_CLAIM, claim, sizes, atLarge.claim(), atSmall.claim());
        report.notMeasured(
                Goal.WAVE_3_UNUSED,
                "not measured by one run: benchmarks/compare-latency.sh runs this scenario in a build of 115bf06 (the"
                        + " last revision before wave 3) and one of this revision, in alternating rounds");
        context.dropSchema(SMALL_SCHEMA);
        context.dropSchema(LARGE_SCHEMA);
    }

    private static void target(
            Report report, Goal goal, Rounds ratio, String sizes, Latencies.Series large, Latencies.Series small) {
        report.target(
                goal,
                ratio,
                String.format(
                        Locale.ROOT,
                        "%s: p50 %s vs %s ms; p99 ratio %s",
                        sizes,
                        ResultsWriter.format(large.p50().median()),
                        ResultsWriter.format(small.p50().median()),
                        large.p99().dividedBy(small.p99()).format(2)));
    }

    private static Rounds ratio(Report report, String figure, String sizes, Rounds large, Rounds small) {
        return report.ratio(
                figure + " latency, " + sizes,
                large,
                small,
                ResultsWriter.format(large.median()) + " ÷ " + ResultsWriter.format(small.median()) + " ms");
    }

    private record Measured(String label, Latencies.Series trigger, Latencies.Series claim) {}

    /** One schema with its retained runs, its engine, and the rounds measured on it (the first is the warm-up). */
    private static final class Table {

        private final int retained;

        private double fillSeconds;

        private double vacuumSeconds;

        private final RunlaneEngine engine;

        private final String prefix = "scale-" + UUID.randomUUID() + "-";

        private final List<Latencies> triggers = new ArrayList<>();

        private final List<Latencies> claims = new ArrayList<>();

        private long sequence;

        private Table(int retained, RunlaneEngine engine) {
            this.retained = retained;
            this.engine = engine;
        }

        /** Creates the schema and fills it, timing the load and the vacuum. */
        static Table fill(BenchmarkContext context, String schema, int retained) {
            context.createRunlaneSchema(schema);
            Table table = new Table(retained, context.engine(schema, ExecutionSettings.defaults()));
            long began = System.nanoTime();
            DeferredIndexes.around(
                    context.jdbc(),
                    BenchmarkContext.runlaneTables(schema),
                    () -> new RetainedRuns(context.jdbc(), schema).insert(retained, "retained-"));
            table.fillSeconds = (System.nanoTime() - began) / 1e9;
            began = System.nanoTime();
            context.vacuumAnalyzeRunlane(schema);
            table.vacuumSeconds = (System.nanoTime() - began) / 1e9;
            context.progress(
                    "scale: %,d finished runs inserted in %.1f s, VACUUM ANALYZE %.1f s",
                    retained, table.fillSeconds, table.vacuumSeconds);
            return table;
        }

        void sample(int samples) {
            RunlaneTemplate template = engine.template();
            List<String> queues = List.of(RunlaneSettings.DEFAULT_QUEUE);
            List<String> tasks = List.of(BenchmarkTasks.ORDER);
            Duration lease = Duration.ofMinutes(1);
            List<Double> triggerMillis = new ArrayList<>();
            List<Double> claimMillis = new ArrayList<>();
            for (int i = 0; i < samples; i++) {
                long before = System.nanoTime();
                UUID runId = template.trigger(
                                BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(prefix + sequence++))
                        .runId();
                triggerMillis.add(Latencies.millisSince(before));
                before = System.nanoTime();
                List<ClaimedRun> claimed = engine.claims().claimDue(WORKER, queues, tasks, 1, lease);
                claimMillis.add(Latencies.millisSince(before));
                if (claimed.size() != 1 || !claimed.get(0).run().id().equals(runId)) {
                    throw new IllegalStateException("Expected to claim run " + runId + " but claimed " + claimed);
                }
                engine.outcomes()
                        .completeIfHeld(runId, claimed.get(0).fencingToken(), WORKER)
                        .orElseThrow(() -> new IllegalStateException("Could not complete run " + runId));
            }
            triggers.add(new Latencies(triggerMillis));
            claims.add(new Latencies(claimMillis));
        }

        Measured measured() {
            String label = String.format(Locale.ROOT, "%,d finished runs retained", retained);
            return new Measured(
                    label,
                    new Latencies.Series("trigger, " + label, triggers.subList(1, triggers.size())),
                    new Latencies.Series("claim, " + label, claims.subList(1, claims.size())));
        }
    }
}

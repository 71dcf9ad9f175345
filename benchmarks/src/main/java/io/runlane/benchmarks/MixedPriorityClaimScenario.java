package io.runlane.benchmarks;

import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Claim latency behind a deep backlog of mixed priorities (S-PR-2; issue 30): two schemas side by side, each holding
 * the same number of queued due runs and a quarter as many runs due in an hour, one with every run at the default
 * priority and one with the due runs spread over eleven priorities (-100 to 100) and the later ones over ten others,
 * so that a claim there visits 21 priority levels. Each sample claims 32 runs as a worker would ({@code
 * claims().claimDue}, timed), in alternating rounds so that drift of the machine affects both alike; the claimed runs
 * stay running. The ratio is the cost of priorities to a claim.
 */
final class MixedPriorityClaimScenario implements Scenario {

    private static final String UNIFORM_SCHEMA = BenchmarkContext.SCHEMA + "_prio_uniform";

    private static final String MIXED_SCHEMA = BenchmarkContext.SCHEMA + "_prio_mixed";

    private static final String WORKER = "bench-priority";

    private static final int CLAIM = 32;

    /** Queued runs with time-ordered ids, as the engine makes them (UUID version 7), one statement per status. */
    private static final String INSERT = """
            INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at, created_at,
                                 updated_at, attempts, fencing_token, priority)
            SELECT (lpad(to_hex(%d + g), 12, '0') || '70008000' || lpad(to_hex(g), 12, '0'))::uuid, 'default', '%s',
                   '%s', '%s', '{}', 3, %s, now(), now(), 0, 0, %s
            FROM generate_series(1, %d) g
            """;

    @Override
    public String name() {
        return "mixed-priority claim";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int due = context.options().size(1_000_000, 50_000);
        int samples = context.options().size(500, 100);
        int warmUp = context.options().size(100, 20);
        Table uniform = Table.fill(context, UNIFORM_SCHEMA, due, false);
        Table mixed = Table.fill(context, MIXED_SCHEMA, due, true);
        uniform.sample(warmUp);
        mixed.sample(warmUp);
        for (int round = 0; round < context.options().rounds(); round++) {
            uniform.sample(samples);
            mixed.sample(samples);
        }
        Latencies.Series atUniform = uniform.measured();
        Latencies.Series atMixed = mixed.measured();
        context.progress(
                "mixed-priority claim: claim of %d p50 %s ms, p99 %s ms among %,d due runs of 11 priorities; %s ms and"
                        + " %s ms at one priority",
                CLAIM,
                atMixed.p50().format(2),
                atMixed.p99().format(2),
                due,
                atUniform.p50().format(2),
                atUniform.p99().format(2));
        report.latency(atUniform);
        report.latency(atMixed);
        String label = String.format(Locale.ROOT, "%,d due runs of 11 priorities ÷ of one", due);
        report.ratio(
                "claim of " + CLAIM + " p50 latency, " + label,
                atMixed.p50(),
                atUniform.p50(),
                ResultsWriter.format(atMixed.p50().median()) + " ÷ "
                        + ResultsWriter.format(atUniform.p50().median()) + " ms");
        report.ratio(
                "claim of " + CLAIM + " p99 latency, " + label,
                atMixed.p99(),
                atUniform.p99(),
                ResultsWriter.format(atMixed.p99().median()) + " ÷ "
                        + ResultsWriter.format(atUniform.p99().median()) + " ms");
        context.dropSchema(UNIFORM_SCHEMA);
        context.dropSchema(MIXED_SCHEMA);
    }

    /** One schema with its backlog, its engine, and the rounds measured on it (the first is the warm-up). */
    private static final class Table {

        private final String label;

        private final RunlaneEngine engine;

        private final List<Latencies> claims = new ArrayList<>();

        private Table(String label, RunlaneEngine engine) {
            this.label = label;
            this.engine = engine;
        }

        static Table fill(BenchmarkContext context, String schema, int due, boolean mixed) {
            context.createRunlaneSchema(schema);
            long epochMillis = System.currentTimeMillis();
            String queue = RunlaneSettings.DEFAULT_QUEUE;
            DeferredIndexes.around(context.jdbc(), BenchmarkContext.runlaneTables(schema), () -> {
                context.jdbc()
                        .update(INSERT.formatted(
                                schema,
                                epochMillis,
                                BenchmarkTasks.ORDER,
                                queue,
                                "QUEUED",
                                "now() - g * interval '1 millisecond'",
                                mixed ? "(g % 11) * 20 - 100" : "0",
                                due));
                context.jdbc()
                        .update(INSERT.formatted(
                                schema,
                                epochMillis + due,
                                BenchmarkTasks.ORDER,
                                queue,
                                "SCHEDULED",
                                "now() + interval '1 hour' + g * interval '1 millisecond'",
                                mixed ? "(g % 10) * 20 - 90" : "0",
                                due / 4));
            });
            context.vacuumAnalyzeRunlane(schema);
            String label = String.format(
                    Locale.ROOT,
                    "claim of %d among %,d due runs %s",
                    CLAIM,
                    due,
                    mixed ? "of 11 priorities" : "of one");
            return new Table(label, context.engine(schema, ExecutionSettings.defaults()));
        }

        void sample(int samples) {
            List<String> queues = List.of(RunlaneSettings.DEFAULT_QUEUE);
            List<String> tasks = List.of(BenchmarkTasks.ORDER);
            Duration lease = Duration.ofMinutes(10);
            List<Double> millis = new ArrayList<>();
            for (int i = 0; i < samples; i++) {
                long before = System.nanoTime();
                List<ClaimedRun> claimed = engine.claims().claimDue(WORKER, queues, tasks, CLAIM, lease);
                millis.add(Latencies.millisSince(before));
                if (claimed.size() != CLAIM) {
                    throw new IllegalStateException(
                            "Expected to claim " + CLAIM + " runs but claimed " + claimed.size());
                }
            }
            claims.add(new Latencies(millis));
        }

        Latencies.Series measured() {
            return new Latencies.Series(label, claims.subList(1, claims.size()));
        }
    }
}

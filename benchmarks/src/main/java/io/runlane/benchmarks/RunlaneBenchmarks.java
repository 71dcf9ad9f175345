package io.runlane.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Measures Runlane against plain JDBC doing the minimum the same work needs, and against its peers (db-scheduler,
 * DBOS Transact, JobRunr), on the same database and threads, in one process run; prints a table, with the targets
 * of issues 16 and 33 met or missed, and writes it as Markdown. Usage: {@value BenchmarkOptions#USAGE}.
 */
public final class RunlaneBenchmarks {

    /** Held so that the loggers, and the levels set on them, are not garbage collected. */
    private static final List<Logger> QUIET_LOGGERS =
            List.of(Logger.getLogger("liquibase"), Logger.getLogger("org.hibernate.validator"));

    private static List<Scenario> scenarios() {
        return List.of(
                new TriggerScenario(),
                new PeerTriggerScenario(),
                new DuplicateTriggerScenario(),
                new DebouncedBurstScenario(),
                new RateLimitedTriggerScenario(),
                new BatchTriggerScenario(),
                new EndToEndScenario(),
                new MultiInstanceScenario(),
                new LatencyScenario(),
                new SteadyLoadScenario(),
                new StepsScenario(),
                new AwaitScenario(),
                new ThrottleScenario(),
                new MixedPriorityClaimScenario(),
                new PruningScenario(),
                new PartitionedPruningScenario(),
                new ScaleScenario());
    }

    public static void main(String[] args) throws Exception {
        QUIET_LOGGERS.forEach(logger -> logger.setLevel(Level.WARNING));
        BenchmarkOptions options = BenchmarkOptions.parse(args);
        long began = System.nanoTime();
        try (BenchmarkDatabase database = BenchmarkDatabase.open(options.jdbcUrl());
                BenchmarkContext context = new BenchmarkContext(options, database)) {
            ResultsWriter writer = new ResultsWriter(options, MachineDescription.describe(database, context.jdbc()));
            context.createSchema();
            Report report = new Report();
            context.progress("%s", options.commandLine());
            for (Scenario scenario : scenarios()) {
                if (!options.selects(scenario.name())) {
                    continue;
                }
                context.progress("%s ...", scenario.name());
                writer.scenarioStarts(scenario.name());
                scenario.run(context, report);
            }
            String markdown = writer.render(report, Duration.ofNanos(System.nanoTime() - began));
            System.out.println();
            System.out.println(markdown);
            writer.write(options.results(), markdown);
            context.progress("written to %s", options.results().toAbsolutePath());
        }
    }

    private RunlaneBenchmarks() {}
}

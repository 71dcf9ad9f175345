package io.runlane.benchmarks;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The command line: {@code [--quick] [--jdbc-url URL] [--results PATH] [--only NAME]}. Quick mode measures one short round of
 * every figure with smaller data sets, so that CI can check in a few minutes that the harness still works; full
 * mode warms up and then measures several rounds.
 *
 * @param quick whether to measure one short round of every figure
 * @param jdbcUrl an existing server, or {@code null} for an embedded PostgreSQL
 * @param results the Markdown file to write
 * @param only run only the scenarios whose name contains this text (for profiling one of them), or {@code null}
 */
record BenchmarkOptions(
        boolean quick,
        @Nullable String jdbcUrl,
        Path results,
        @Nullable String only) {

    static final String USAGE =
            "java -jar benchmarks/target/runlane-benchmarks.jar [--quick] [--jdbc-url URL] [--results PATH] [--only NAME]";

    private static final Path DEFAULT_RESULTS = Path.of("benchmarks", "RESULTS.md");

    static BenchmarkOptions parse(String... args) {
        boolean quick = false;
        String jdbcUrl = null;
        Path results = DEFAULT_RESULTS;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--jdbc-url" -> jdbcUrl = value(args, ++i);
                case "--results" -> results = Path.of(value(args, ++i));
                case "--only" -> only = value(args, ++i);
                default -> throw new IllegalArgumentException("Unknown argument " + args[i] + "; usage: " + USAGE);
            }
        }
        return new BenchmarkOptions(quick, jdbcUrl, results, only);
    }

    private static String value(String[] args, int index) {
        if (index >= args.length) {
            throw new IllegalArgumentException(args[index - 1] + " needs a value; usage: " + USAGE);
        }
        return args[index];
    }

    /** Whether a scenario is selected by {@code --only}. */
    boolean selects(String scenarioName) {
        return only == null || scenarioName.contains(only);
    }

    /** Measured rounds of every figure, after the warm-up. */
    int rounds() {
        return quick ? 1 : 3;
    }

    /** How long one throughput round lasts. */
    long roundMillis() {
        return quick ? 1_000 : 5_000;
    }

    /** How long the warm-up of one throughput measurement lasts. */
    long warmUpMillis() {
        return quick ? 500 : 3_000;
    }

    /** The full-mode size, or the quick-mode size. */
    int size(int full, int quickSize) {
        return quick ? quickSize : full;
    }

    /** The command that gives these options, with any password in the URL masked. */
    String commandLine() {
        StringBuilder command = new StringBuilder("java -jar benchmarks/target/runlane-benchmarks.jar");
        if (quick) {
            command.append(" --quick");
        }
        if (jdbcUrl != null) {
            command.append(" --jdbc-url '")
                    .append(BenchmarkDatabase.redact(jdbcUrl))
                    .append('\'');
        }
        if (!results.equals(DEFAULT_RESULTS)) {
            command.append(" --results ").append(results);
        }
        if (only != null) {
            command.append(" --only '").append(only).append('\'');
        }
        return command.toString();
    }

    String describe() {
        return quick
                ? "quick: a short warm-up, then 1 round of every figure, smaller data sets"
                : "full: a warm-up, then " + rounds()
                        + " rounds of every figure, the two sides of each ratio in alternating rounds; median with"
                        + " the spread (lowest-highest round), ratios formed round by round";
    }
}

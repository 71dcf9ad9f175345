package io.runlane.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Renders a report as Markdown: the machine, then one table per kind of figure, then the targets. */
final class ResultsWriter {

    private final BenchmarkOptions options;

    private final MachineDescription machine;

    private final OffsetDateTime startedAt = OffsetDateTime.now(ZoneOffset.UTC);

    private final String loadAtStart = MachineDescription.loadAverage();

    private final List<String> scenarioLoads = new ArrayList<>();

    ResultsWriter(BenchmarkOptions options, MachineDescription machine) {
        this.options = options;
        this.machine = machine;
    }

    /** Notes the 1-minute load average as a scenario starts: other work on the machine skews its figures. */
    void scenarioStarts(String scenario) {
        scenarioLoads.add(scenario + " " + MachineDescription.oneMinuteLoad());
    }

    String render(Report report, Duration took) {
        StringBuilder out = new StringBuilder();
        out.append("# Runlane benchmark results\n\n");
        out.append("Written by `")
                .append(options.commandLine())
                .append("` (usage: `")
                .append(BenchmarkOptions.USAGE)
                .append("`).\n\n");
        line(out, "date", startedAt.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
        line(out, "mode", options.describe());
        line(out, "duration", took.toMinutes() + " min " + took.toSecondsPart() + " s");
        line(
                out,
                "machine",
                machine.cores() + " cores (" + machine.cpu() + "), " + machine.memory() + " memory, "
                        + machine.operatingSystem());
        line(
                out,
                "machine load (uptime load average, 1/5/15 min)",
                loadAtStart + " at the start, " + MachineDescription.loadAverage() + " at the end");
        line(out, "1-minute load average as each scenario started", String.join("; ", scenarioLoads));
        line(out, "Java", machine.java());
        line(out, "PostgreSQL", machine.postgres() + "; " + machine.postgresSettings());
        out.append('\n');
        comparisons(out, report);
        figures(out, report);
        latencies(out, report);
        ratios(out, report);
        targets(out, report);
        if (!report.notes().isEmpty()) {
            out.append("## Notes\n\n");
            report.notes().forEach(note -> out.append("- ").append(note).append('\n'));
            out.append('\n');
        }
        return out.toString();
    }

    void write(Path file, String markdown) throws IOException {
        Path absolute = file.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Files.writeString(absolute, markdown);
    }

    private static void line(StringBuilder out, String name, String value) {
        out.append("- ").append(name).append(": ").append(value).append('\n');
    }

    private static void comparisons(StringBuilder out, Report report) {
        if (report.comparisons().isEmpty()) {
            return;
        }
        out.append("## Throughput: Runlane against its baselines\n\n");
        out.append("Runlane and its baselines are measured in alternating rounds; Runlane ÷ baseline is the median of"
                + " the per-round ratios, with their spread (lowest-highest round).\n\n");
        out.append("| scenario | threads | Runlane | baseline | baseline figure | Runlane ÷ baseline |\n");
        out.append("|---|---:|---:|---|---:|---:|\n");
        for (Report.Comparison row : report.comparisons()) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %s | %s | %s | %s |%n",
                    row.scenario(),
                    row.threads(),
                    row.runlane().format(0),
                    row.baseline(),
                    row.baselineRounds().format(0),
                    row.perRound().format(2)));
        }
        out.append('\n');
    }

    private static void figures(StringBuilder out, Report report) {
        if (report.figures().isEmpty()) {
            return;
        }
        out.append("## Other figures\n\n| figure | value |\n|---|---:|\n");
        for (Report.Figure figure : report.figures()) {
            out.append("| ")
                    .append(figure.name())
                    .append(" | ")
                    .append(figure.value().format(figure.decimals()))
                    .append(" |\n");
        }
        out.append('\n');
    }

    private static void latencies(StringBuilder out, Report report) {
        if (report.latencies().isEmpty()) {
            return;
        }
        out.append("## Latency (milliseconds)\n\n");
        out.append("| figure | samples per round | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n");
        for (Latencies.Series series : report.latencies()) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %s | %s | %s |%n",
                    series.name(),
                    series.samplesPerRound(),
                    series.p50().format(2),
                    series.p99().format(2),
                    series.max().format(2)));
        }
        out.append('\n');
    }

    private static void ratios(StringBuilder out, Report report) {
        if (report.comparisons().isEmpty() && report.ratios().isEmpty()) {
            return;
        }
        out.append("## Ratios\n\n");
        out.append(
                "Each ratio is formed round by round from two figures measured in alternating rounds; the value is the"
                        + " median of those per-round ratios, with their spread (lowest-highest round).\n\n");
        out.append("| ratio | value (per-round spread) | formed from (medians of the figures) |\n|---|---:|---|\n");
        for (Report.Comparison row : report.comparisons()) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s, %s: Runlane ÷ %s | %s | %s ÷ %s |%n",
                    row.scenario(),
                    row.threads() == 1 ? "1 thread" : row.threads() + " threads",
                    row.baseline(),
                    row.perRound().format(2),
                    format(row.runlane().median()),
                    format(row.baselineRounds().median())));
        }
        for (Report.Ratio ratio : report.ratios()) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s |%n",
                    ratio.name(),
                    ratio.perRound().format(2),
                    ratio.formedFrom()));
        }
        out.append('\n');
    }

    private static void targets(StringBuilder out, Report report) {
        List<Report.Target> targets = report.targets();
        long measured = targets.stream().filter(Report.Target::measured).count();
        long met = targets.stream().filter(Report.Target::met).count();
        out.append("## Targets (issues 16 and 33)\n\n");
        out.append(String.format(
                Locale.ROOT, "%d of %d met (%d measured in this run).%n%n", met, targets.size(), measured));
        out.append("| figure | target | measured | result |\n|---|---|---|---|\n");
        for (Report.Target target : targets) {
            Goal goal = target.goal();
            String value = target.measured()
                    ? String.format(Locale.ROOT, "%s%s (%s)", target.value().format(2), goal.unit(), target.detail())
                    : target.detail();
            String result = !target.measured()
                    ? "not measured"
                    : target.met()
                            ? "met"
                            : target.violation() != null ? "**missed**: " + target.violation() : "**missed**";
            out.append("| ")
                    .append(goal.figure())
                    .append(" | ")
                    .append(goal.describeTarget())
                    .append(" | ")
                    .append(value)
                    .append(" | ")
                    .append(result)
                    .append(" |\n");
        }
        out.append('\n');
    }

    static String format(double value) {
        return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.2f", value);
    }
}

package io.runlane.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Every figure, ratio and target of one run, in the order the scenarios added them. */
final class Report {

    /**
     * Runlane against a baseline on the same workload and threads.
     *
     * @param scenario what was measured, with its unit
     * @param threads the threads (or workers) on both sides
     * @param runlane Runlane's rounds
     * @param baseline what Runlane is compared with
     * @param baselineRounds the baseline's rounds
     */
    record Comparison(String scenario, int threads, Rounds runlane, String baseline, Rounds baselineRounds) {

        double ratio() {
            return runlane.median() / baselineRounds.median();
        }
    }

    /** A figure without a baseline, such as rows pruned per second. */
    record Figure(String name, Rounds value, int decimals) {}

    /** A ratio of two figures reported above, with how it was formed. */
    record Ratio(String name, double value, String formedFrom) {}

    /** A target from the issue, the value measured for it, and whether it was met. */
    record Target(String target, String measured, boolean met) {}

    private final List<Comparison> comparisons = new ArrayList<>();

    private final List<Figure> figures = new ArrayList<>();

    private final List<Latencies.Series> latencies = new ArrayList<>();

    private final List<Ratio> ratios = new ArrayList<>();

    private final List<Target> targets = new ArrayList<>();

    private final List<String> notes = new ArrayList<>();

    Comparison compare(String scenario, int threads, Rounds runlane, String baseline, Rounds baselineRounds) {
        Comparison comparison = new Comparison(scenario, threads, runlane, baseline, baselineRounds);
        comparisons.add(comparison);
        return comparison;
    }

    void figure(String name, Rounds value, int decimals) {
        figures.add(new Figure(name, value, decimals));
    }

    void latency(Latencies.Series series) {
        latencies.add(series);
    }

    double ratio(String name, double numerator, double denominator, String formedFrom) {
        double value = numerator / denominator;
        ratios.add(new Ratio(name, value, formedFrom));
        return value;
    }

    /** A target met when {@code value} is at least {@code minimum}. */
    void atLeast(String target, double value, double minimum, String detail) {
        targets.add(new Target(target, format(value) + " (" + detail + ")", value >= minimum));
    }

    /** A target met when {@code value} is at most {@code maximum}; {@code strictly} for a "less than" target. */
    void atMost(String target, double value, double maximum, boolean strictly, String detail) {
        targets.add(
                new Target(target, format(value) + " (" + detail + ")", strictly ? value < maximum : value <= maximum));
    }

    void note(String note) {
        notes.add(note);
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    List<Comparison> comparisons() {
        return comparisons;
    }

    List<Figure> figures() {
        return figures;
    }

    List<Latencies.Series> latencies() {
        return latencies;
    }

    List<Ratio> ratios() {
        return ratios;
    }

    List<Target> targets() {
        return targets;
    }

    List<String> notes() {
        return notes;
    }
}

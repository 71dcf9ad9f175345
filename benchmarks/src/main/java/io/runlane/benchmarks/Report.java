package io.runlane.benchmarks;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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

    /**
     * A target of issue 16 with the value measured for it and how that value was formed, or, when {@code value} is
     * {@code null}, why it was not measured.
     */
    record Target(Goal goal, @Nullable Double value, String detail) {

        boolean measured() {
            return value != null;
        }

        boolean met() {
            return value != null && goal.metBy(value);
        }
    }

    private final List<Comparison> comparisons = new ArrayList<>();

    private final List<Figure> figures = new ArrayList<>();

    private final List<Latencies.Series> latencies = new ArrayList<>();

    private final List<Ratio> ratios = new ArrayList<>();

    private final Map<Goal, Target> targets = new EnumMap<>(Goal.class);

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

    /** Records the value measured for a target, with how it was formed (the figures it was formed from). */
    void target(Goal goal, double value, String detail) {
        targets.put(goal, new Target(goal, value, detail));
    }

    /** Records that a target could not be measured in this run, and why. */
    void notMeasured(Goal goal, String why) {
        targets.put(goal, new Target(goal, null, why));
    }

    void note(String note) {
        notes.add(note);
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

    /** Every target of issue 16 in the order; those no scenario of this run measured say so. */
    List<Target> targets() {
        List<Target> all = new ArrayList<>();
        for (Goal goal : Goal.values()) {
            all.add(targets.getOrDefault(
                    goal, new Target(goal, null, "not measured: its scenario did not run (--only)")));
        }
        return all;
    }

    List<String> notes() {
        return notes;
    }
}

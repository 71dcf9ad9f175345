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

        /** Runlane's round divided by the baseline's round measured next to it, round by round. */
        Rounds perRound() {
            return runlane.dividedBy(baselineRounds);
        }

        /** The median of the per-round ratios. */
        double ratio() {
            return perRound().median();
        }
    }

    /** A figure without a baseline, such as rows pruned per second. */
    record Figure(String name, Rounds value, int decimals) {}

    /**
     * A ratio of two figures reported above, round by round (their rounds alternated), with how it was formed.
     *
     * @param perRound each round's numerator divided by the same round's denominator
     */
    record Ratio(String name, Rounds perRound, String formedFrom) {

        double value() {
            return perRound.median();
        }
    }

    /**
     * A target with the value measured for it in each round and how that value was formed, or, when {@code value}
     * is {@code null}, why it was not measured. A target whose {@code violation} is set is missed whatever its value,
     * e.g. when runs were executed twice.
     */
    record Target(
            Goal goal,
            @Nullable Rounds value,
            String detail,
            @Nullable String violation) {

        boolean measured() {
            return value != null;
        }

        boolean met() {
            return value != null && violation == null && goal.metBy(value.median());
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

    /** Records the ratio of two figures measured in alternating rounds, round by round; returns the ratios. */
    Rounds ratio(String name, Rounds numerator, Rounds denominator, String formedFrom) {
        Rounds perRound = numerator.dividedBy(denominator);
        ratios.add(new Ratio(name, perRound, formedFrom));
        return perRound;
    }

    /**
     * Records the value measured for a target in each round (its median is held against the target), with how it
     * was formed (the figures it was formed from).
     */
    void target(Goal goal, Rounds value, String detail) {
        target(goal, value, detail, null);
    }

    /** Records the value measured for a target; a {@code violation} misses the target whatever the value. */
    void target(Goal goal, Rounds value, String detail, @Nullable String violation) {
        targets.put(goal, new Target(goal, value, detail, violation));
    }

    /** Records that a target could not be measured in this run, and why. */
    void notMeasured(Goal goal, String why) {
        targets.put(goal, new Target(goal, null, why, null));
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

    /** Every target in the issues' order; those no scenario of this run measured say so. */
    List<Target> targets() {
        List<Target> all = new ArrayList<>();
        for (Goal goal : Goal.values()) {
            all.add(targets.getOrDefault(
                    goal, new Target(goal, null, "not measured: its scenario did not run (--only)", null)));
        }
        return all;
    }

    List<String> notes() {
        return notes;
    }
}

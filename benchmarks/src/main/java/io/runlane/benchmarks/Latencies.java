package io.runlane.benchmarks;

import java.util.List;

/** The latencies of one round, in milliseconds, with nearest-rank percentiles. */
record Latencies(List<Double> millis) {

    Latencies {
        if (millis.isEmpty()) {
            throw new IllegalArgumentException("A latency round needs at least one sample");
        }
        millis = millis.stream().sorted().toList();
    }

    static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    double percentile(double fraction) {
        int rank = (int) Math.ceil(fraction * millis.size());
        return millis.get(Math.max(0, rank - 1));
    }

    double p50() {
        return percentile(0.50);
    }

    double p99() {
        return percentile(0.99);
    }

    double max() {
        return millis.get(millis.size() - 1);
    }

    int samples() {
        return millis.size();
    }

    /** The p50, p99 and max of several rounds, each as {@link Rounds}. */
    record Series(String name, List<Latencies> rounds) {

        Series {
            rounds = List.copyOf(rounds);
        }

        Rounds p50() {
            return new Rounds(rounds.stream().map(Latencies::p50).toList());
        }

        Rounds p99() {
            return new Rounds(rounds.stream().map(Latencies::p99).toList());
        }

        Rounds max() {
            return new Rounds(rounds.stream().map(Latencies::max).toList());
        }

        int samplesPerRound() {
            return rounds.stream().mapToInt(Latencies::samples).min().orElse(0);
        }
    }
}

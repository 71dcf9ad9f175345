package io.runlane.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;

/** The values one figure took in the measured rounds; reported as the median with the spread. */
record Rounds(List<Double> values) {

    Rounds {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("A figure needs at least one round");
        }
        values = List.copyOf(values);
    }

    double median() {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    double min() {
        return values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    double max() {
        return values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    /**
     * The ratio of each round to the same round of {@code denominator}: the two sides of a comparison were measured in
     * alternating rounds, so each pair saw the same state of the machine, and the spread of these ratios shows how
     * far a single comparison can be trusted.
     */
    Rounds dividedBy(Rounds denominator) {
        if (values.size() != denominator.values.size()) {
            throw new IllegalArgumentException("Per-round ratios need as many rounds on both sides: " + values.size()
                    + " and " + denominator.values.size());
        }
        List<Double> ratios = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            ratios.add(values.get(i) / denominator.values.get(i));
        }
        return new Rounds(ratios);
    }

    Rounds map(DoubleUnaryOperator operator) {
        return new Rounds(
                values.stream().map(value -> operator.applyAsDouble(value)).toList());
    }

    /** The median, followed by the spread when there was more than one round, e.g. {@code 1234 (1200-1300)}. */
    String format(int decimals) {
        String number = "%." + decimals + "f";
        if (values.size() == 1) {
            return String.format(Locale.ROOT, number, median());
        }
        return String.format(Locale.ROOT, number + " (" + number + "-" + number + ")", median(), min(), max());
    }
}

package io.runlane.benchmarks;

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

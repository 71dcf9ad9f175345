package io.runlane.benchmarks;

import java.util.Locale;

/**
 * The targets of issue 16 in the order, then those issue 33 added. Each scenario that measures one records
 * its value in the {@link Report}; the results list every target, also those that a run did not measure, and say why.
 */
enum Goal {
    TRIGGER_VS_INSERT("trigger new runs with keys ÷ JDBC insert + commit, 4 threads", Bound.AT_LEAST, 0.6, ""),
    TRIGGER_VS_PEERS(
            "trigger new runs ÷ the fastest peer's deduplicated enqueue (db-scheduler, DBOS Transact, JobRunr), 4"
                    + " threads",
            Bound.AT_LEAST,
            1.5,
            ""),
    DUPLICATE_VS_LOOKUP(
            "duplicate trigger ÷ JDBC primary-key lookup, 4 threads (and new runs not slower)",
            Bound.AT_LEAST,
            0.5,
            ""),
    END_TO_END_VS_DB_SCHEDULER("end-to-end no-op ÷ db-scheduler 16.7.1", Bound.AT_LEAST, 2, ""),
    END_TO_END_VS_NAIVE_LOOP(
            "end-to-end ÷ naive plain SQL loop (claims batched, one autocommit UPDATE per completion)",
            Bound.AT_LEAST,
            0.9,
            ""),
    IDLE_LATENCY("trigger-to-start p99, idle worker", Bound.BELOW, 5, " ms"),
    STEADY_LOAD_LATENCY("trigger-to-start p99 under a 1,000 runs/s steady load", Bound.BELOW, 10, " ms"),
    PRUNING_LATENCY("trigger p99 during pruning ÷ without", Bound.AT_MOST, 1.5, ""),
    SCALE_TRIGGER("trigger latency (p50) at 10,000,000 retained runs ÷ at 10,000", Bound.AT_MOST, 1.3, ""),
    SCALE_CLAIM("claim latency (p50) at 10,000,000 retained runs ÷ at 10,000", Bound.AT_MOST, 1.3, ""),
    STEPS_VS_DBOS("10-step workflow ÷ DBOS Transact Java, same database (runs/s, 8 threads)", Bound.AT_LEAST, 1.5, ""),
    END_TO_END_VS_BATCHED_LOOP(
            "end-to-end ÷ batched plain SQL loop (claims and completions batched, one UPDATE ... = ANY(?) per batch)",
            Bound.AT_LEAST,
            0.8,
            ""),
    MULTI_INSTANCE(
            "end-to-end, 3 instances ÷ 1 instance, on one database", Bound.AT_LEAST, 0.85, "", ", 0 re-executions"),
    THROTTLE_AT_LIMIT(
            "throttled task at its limit: achieved attempt starts/s ÷ the throttle, while another task drains",
            Bound.AT_LEAST,
            0.95,
            ""),
    IDLE_LATENCY_VS_INSERT(
            "trigger-to-start p99, idle worker ÷ plain JDBC single insert + commit p99 (same rounds)",
            Bound.AT_MOST,
            1.3,
            ""),
    STEPS_VS_DBOS_DOUBLED(
            "10-step workflow ÷ DBOS Transact Java, same database (runs/s, 8 threads), issue 33's target",
            Bound.AT_LEAST,
            2,
            ""),
    BATCH_VS_INSERT(
            "batch trigger (1,000 runs per call) ÷ JDBC batch insert of 1,000 rows + one commit",
            Bound.AT_LEAST,
            0.7,
            ""),
    STEADY_LOAD_ALLOCATION("allocated bytes per run, steady load (JFR)", Bound.AT_MOST, 8, " KB"),
    WAVE_3_UNUSED(
            "trigger and claim p99 with wave-3 features present but unused ÷ before wave 3", Bound.AT_MOST, 1.05, "");

    /** How a measured value is held against the target. */
    enum Bound {
        AT_LEAST("≥"),
        AT_MOST("≤"),
        BELOW("<");

        private final String symbol;

        Bound(String symbol) {
            this.symbol = symbol;
        }
    }

    private final String figure;

    private final Bound bound;

    private final double target;

    private final String unit;

    /** A condition besides the bound, as the target's text names it; its scenario reports whether it held. */
    private final String condition;

    Goal(String figure, Bound bound, double target, String unit) {
        this(figure, bound, target, unit, "");
    }

    Goal(String figure, Bound bound, double target, String unit, String condition) {
        this.figure = figure;
        this.bound = bound;
        this.target = target;
        this.unit = unit;
        this.condition = condition;
    }

    String figure() {
        return figure;
    }

    /** The target as the issue writes it, e.g. {@code ≥ 0.6}, {@code < 20 ms} or {@code ≥ 0.85, 0 re-executions}. */
    String describeTarget() {
        return bound.symbol + " " + format(target) + unit + condition;
    }

    boolean metBy(double value) {
        return switch (bound) {
            case AT_LEAST -> value >= target;
            case AT_MOST -> value <= target;
            case BELOW -> value < target;
        };
    }

    String unit() {
        return unit;
    }

    private static String format(double value) {
        return value == Math.rint(value)
                ? String.format(Locale.ROOT, "%.0f", value)
                : String.format(Locale.ROOT, "%s", value);
    }
}

package io.runlane.benchmarks;

/** One benchmark scenario: warms up, measures its rounds, and adds its figures, ratios and targets to the report. */
interface Scenario {

    String name();

    void run(BenchmarkContext context, Report report) throws Exception;
}

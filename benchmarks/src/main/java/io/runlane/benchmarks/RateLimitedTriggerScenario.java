package io.runlane.benchmarks;

import io.runlane.RateLimitExceededException;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Triggers of a rate-limited task whose keys are at their limit (S-RT-2), each refused with {@link
 * RateLimitExceededException}, against plain triggers of new runs: a refusal takes the key's advisory lock, counts
 * the window from its index and writes nothing.
 */
final class RateLimitedTriggerScenario implements Scenario {

    private static final int THREADS = 4;

    private static final int KEYS = 100;

    private static final int LIMIT = 10;

    @Override
    public String name() {
        return "trigger, rate-limited key";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        RunlaneTemplate runlane = context.engine().template();
        String prefix = "limited-" + UUID.randomUUID() + "-";
        for (int key = 0; key < KEYS; key++) {
            for (int i = 0; i < LIMIT; i++) {
                runlane.trigger(BenchmarkTasks.LIMITED, new BenchmarkTasks.LimitedTask.Payload(prefix + key));
            }
        }
        context.vacuumAnalyzeRunlane();
        Rounds[] measured = Measurement.compare(
                context.options(),
                THREADS,
                (worker, sequence) -> {
                    try {
                        runlane.trigger(
                                BenchmarkTasks.LIMITED,
                                new BenchmarkTasks.LimitedTask.Payload(
                                        prefix + ThreadLocalRandom.current().nextInt(KEYS)),
                                TriggerOptions.none());
                        throw new IllegalStateException("A key at its rate limit created a run");
                    } catch (RateLimitExceededException expected) {
                        // the refusal is the operation measured
                    }
                },
                (worker, sequence) -> runlane.trigger(
                        BenchmarkTasks.ORDER,
                        new BenchmarkTasks.OrderTask.Payload(prefix + "plain-" + sequence),
                        TriggerOptions.none()));
        report.compare(
                "trigger, rate-limited key: refusals (triggers/s)", THREADS, measured[0], "plain trigger", measured[1]);
        context.progress(
                "trigger, rate-limited key, %d threads: refusals %s/s, plain triggers %s/s",
                THREADS, measured[0].format(0), measured[1].format(0));
    }
}

package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.util.UUID;

/**
 * A burst of triggers of one debounce key, each folded into the key's pending run ({@code DEBOUNCED}: its due time
 * moves and its payload is replaced, S-DB-1, S-DB-2), against the same burst of duplicate triggers of one idempotency
 * key ({@code RETURNED_EXISTING}, which writes nothing). A fold writes: it updates the pending run and appends an
 * event, one fold after another on the key's row, so it costs what a write serialised on one row costs.
 */
final class DebouncedBurstScenario implements Scenario {

    private static final int THREADS = 4;

    @Override
    public String name() {
        return "trigger, debounced burst";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        RunlaneTemplate runlane = context.engine().template();
        String debounceKey = "burst-" + UUID.randomUUID();
        String orderId = "burst-" + UUID.randomUUID();
        runlane.trigger(BenchmarkTasks.DEBOUNCED, new BenchmarkTasks.DebouncedTask.Payload(debounceKey, 0));
        runlane.trigger(BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(orderId));
        context.vacuumAnalyzeRunlane();
        Rounds[] measured = Measurement.compare(
                context.options(),
                THREADS,
                (worker, sequence) -> runlane.trigger(
                        BenchmarkTasks.DEBOUNCED,
                        new BenchmarkTasks.DebouncedTask.Payload(debounceKey, sequence),
                        TriggerOptions.none()),
                (worker, sequence) -> runlane.trigger(
                        BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(orderId), TriggerOptions.none()));
        report.compare(
                "trigger, debounced burst: DEBOUNCED into one run (triggers/s)",
                THREADS,
                measured[0],
                "Runlane duplicate triggers of one idempotency key (RETURNED_EXISTING)",
                measured[1]);
        context.progress(
                "trigger, debounced burst, %d threads: folded %s/s, duplicates %s/s",
                THREADS, measured[0].format(0), measured[1].format(0));
    }
}

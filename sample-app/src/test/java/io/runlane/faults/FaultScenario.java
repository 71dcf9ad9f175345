package io.runlane.faults;

import java.time.Duration;
import java.util.List;

/**
 * A named scenario: the faults injected together during its load window, whether the clock-skewed instance must be
 * running, and whether a run may be executed twice at all (a scenario whose faults cut no attempt allows none).
 */
record FaultScenario(String name, List<Fault> faults, boolean needsSkew, boolean reexecutionAllowed) {

    private static final List<Integer> ANY_NODE = List.of(0, 1, 2);

    /** The seven fault classes on their own, then all of them at once. */
    static List<FaultScenario> all() {
        return List.of(
                new FaultScenario("kill9", List.of(Faults.kill(ANY_NODE)), false, true),
                new FaultScenario("sigterm", List.of(Faults.terminate(ANY_NODE)), false, true),
                new FaultScenario("pg-restart", List.of(Faults.restartDatabase()), false, true),
                new FaultScenario("pg-terminate", List.of(Faults.terminateBackends()), false, true),
                new FaultScenario("partition", List.of(Faults.partition(ANY_NODE)), false, true),
                new FaultScenario("latency", List.of(Faults.latency(0, Duration.ofMillis(200))), false, false),
                new FaultScenario("clock-skew", List.of(), true, false),
                new FaultScenario("row-lock", List.of(Faults.rowLock()), false, true),
                new FaultScenario(
                        "combined",
                        List.of(
                                Faults.kill(List.of(0)),
                                Faults.terminate(List.of(2)),
                                Faults.partition(List.of(1)),
                                Faults.latency(1, Duration.ofMillis(200)),
                                Faults.terminateBackends(),
                                Faults.restartDatabase(),
                                Faults.rowLock()),
                        true,
                        true));
    }
}

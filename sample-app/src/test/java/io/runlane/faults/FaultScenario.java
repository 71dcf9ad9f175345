package io.runlane.faults;

import java.time.Duration;
import java.util.List;

/**
 * A named scenario: the faults injected together during its load window, whether the clock-skewed instance must be
 * running, which runs may be executed more than once, whether a partitioned zombie's refused completion must have
 * been observed, and what the handlers do.
 */
record FaultScenario(
        String name,
        List<Fault> faults,
        boolean needsSkew,
        Reexecution reexecution,
        boolean zombieRequired,
        Workload workload) {

    FaultScenario(String name, List<Fault> faults, boolean needsSkew, Reexecution reexecution) {
        this(name, faults, needsSkew, reexecution, false);
    }

    FaultScenario(String name, List<Fault> faults, boolean needsSkew, Reexecution reexecution, boolean zombieRequired) {
        this(name, faults, needsSkew, reexecution, zombieRequired, Workload.EFFECTS);
    }

    /** Which runs a scenario's faults may make run again (each one still has to be explained by the evidence). */
    enum Reexecution {
        /** None: the faults cut no attempt (latency, clock skew), so nothing may change. */
        NONE,
        /** Only the runs whose rows were locked: one locked row must not cost the other runs their leases. */
        LOCKED_RUNS,
        /** Any run whose attempt the faults cut. */
        CUT_ATTEMPTS
    }

    private static final List<Integer> ANY_NODE = List.of(0, 1, 2);

    /** Whether the scenario fails over a replicated pair, so it runs on a cluster of its own on that pair. */
    boolean failover() {
        return faults.stream().anyMatch(Failover.class::isInstance);
    }

    /**
     * The seven fault classes on their own, {@code kill -9} once more against transactional steps, all of them at
     * once, and the failovers of a synchronously replicated pair: its primary killed, and its primary hung.
     */
    static List<FaultScenario> all() {
        return List.of(
                new FaultScenario("kill9", List.of(Faults.kill(ANY_NODE)), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario(
                        "kill9-txsteps",
                        List.of(Faults.killInSteps()),
                        false,
                        Reexecution.CUT_ATTEMPTS,
                        false,
                        Workload.TRANSACTIONAL_STEPS),
                new FaultScenario("sigterm", List.of(Faults.terminate(ANY_NODE)), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario("pg-restart", List.of(Faults.restartDatabase()), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario("pg-terminate", List.of(Faults.terminateBackends()), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario(
                        "partition", List.of(Faults.partition(ANY_NODE)), false, Reexecution.CUT_ATTEMPTS, true),
                new FaultScenario(
                        "latency", List.of(Faults.latency(0, Duration.ofMillis(200))), false, Reexecution.NONE),
                new FaultScenario("clock-skew", List.of(), true, Reexecution.NONE),
                new FaultScenario("row-lock", List.of(Faults.rowLock()), false, Reexecution.LOCKED_RUNS),
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
                        Reexecution.CUT_ATTEMPTS),
                new FaultScenario("failover-kill", List.of(Failover.killingPrimary()), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario(
                        "failover-hung", List.of(Failover.freezingPrimary()), false, Reexecution.CUT_ATTEMPTS));
    }
}

package io.runlane.faults;

import java.time.Duration;
import java.util.List;

/**
 * A named scenario: the faults injected together during its load window, whether the clock-skewed instance must be
 * running, which runs may be executed more than once, what its faults must have been seen to do (a partitioned
 * zombie's refused completion, a late claim answer), what the handlers do, and whether a throttled load ({@link
 * ThrottleLoad}) runs beside the main one.
 */
record FaultScenario(
        String name,
        List<Fault> faults,
        boolean needsSkew,
        Reexecution reexecution,
        Required required,
        Workload workload,
        boolean throttled) {

    FaultScenario(
            String name,
            List<Fault> faults,
            boolean needsSkew,
            Reexecution reexecution,
            Required required,
            Workload workload) {
        this(name, faults, needsSkew, reexecution, required, workload, false);
    }

    FaultScenario(String name, List<Fault> faults, boolean needsSkew, Reexecution reexecution) {
        this(name, faults, needsSkew, reexecution, Required.NOTHING);
    }

    FaultScenario(String name, List<Fault> faults, boolean needsSkew, Reexecution reexecution, Required required) {
        this(name, faults, needsSkew, reexecution, required, Workload.EFFECTS);
    }

    /** What a scenario's faults must have been seen to do, or the promise they test was not exercised. */
    enum Required {
        /** Nothing in particular. */
        NOTHING,
        /** A partition caught a long attempt in flight and saw it recovered elsewhere (S-EX-3). */
        PARTITION_ZOMBIE,
        /** A claim's answer arrived after its lease expired, while a later attempt of its run ran (S-EX-30). */
        LATE_CLAIM_ANSWER,
        /** An instance was killed in the middle of a bulk resume: some runs resumed, some not yet (S-RV-4). */
        BULK_RESUME_KILL,
        /**
         * An instance was killed right after a trigger's commit stored its run claimed by it (S-EX-36), and each run so
         * left succeeded once elsewhere.
         */
        KILL_AFTER_START
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
     * The seven fault classes on their own, {@code kill -9} once more against transactional steps and right after
     * triggers' commits that started their runs (S-EX-36), a claim's answer
     * held until its lease expired, {@code kill -9} of an instance in the middle of a bulk resume, {@code kill -9} and
     * backend kills during bursts of debounced triggers, an instance's clock minutes off while throttled keys are at
     * their limit (S-TH-3), all of them at once, and the failovers of a synchronously replicated pair: its primary
     * killed, and its primary hung.
     */
    static List<FaultScenario> all() {
        return List.of(
                new FaultScenario("kill9", List.of(Faults.kill(ANY_NODE)), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario(
                        "kill9-txsteps",
                        List.of(Faults.killInSteps()),
                        false,
                        Reexecution.CUT_ATTEMPTS,
                        Required.NOTHING,
                        Workload.TRANSACTIONAL_STEPS),
                new FaultScenario(
                        "kill9-after-start",
                        List.of(Faults.killRightAfterTrigger(ANY_NODE)),
                        false,
                        Reexecution.CUT_ATTEMPTS,
                        Required.KILL_AFTER_START),
                new FaultScenario("sigterm", List.of(Faults.terminate(ANY_NODE)), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario("pg-restart", List.of(Faults.restartDatabase()), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario("pg-terminate", List.of(Faults.terminateBackends()), false, Reexecution.CUT_ATTEMPTS),
                new FaultScenario(
                        "partition",
                        List.of(Faults.partition(ANY_NODE)),
                        false,
                        Reexecution.CUT_ATTEMPTS,
                        Required.PARTITION_ZOMBIE),
                new FaultScenario(
                        "late-claim-answers",
                        List.of(Faults.lateClaimAnswers(ANY_NODE)),
                        false,
                        Reexecution.NONE,
                        Required.LATE_CLAIM_ANSWER),
                new FaultScenario(
                        "bulk-resume-kill",
                        List.of(Faults.killDuringBulkResume(0, 1)),
                        false,
                        Reexecution.CUT_ATTEMPTS,
                        Required.BULK_RESUME_KILL,
                        Workload.FAILING_FIRST_LIFE),
                new FaultScenario(
                        "debounce",
                        List.of(Faults.kill(ANY_NODE), Faults.terminateBackends()),
                        false,
                        Reexecution.CUT_ATTEMPTS,
                        Required.NOTHING,
                        Workload.DEBOUNCED),
                new FaultScenario(
                        "latency", List.of(Faults.latency(0, Duration.ofMillis(200))), false, Reexecution.NONE),
                new FaultScenario(
                        "clock-skew", List.of(), true, Reexecution.NONE, Required.NOTHING, Workload.EFFECTS, true),
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

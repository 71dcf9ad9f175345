package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.faults.Evidence.EffectRow;
import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The fault suite's checker must be able to fail: each broken promise, written as the evidence it would leave, is
 * reported, and a clean history with an explained re-execution is not.
 */
class InvariantCheckTests {

    private static final String SCENARIO = "unit";

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final UUID run = UUID.randomUUID();

    private final List<RunRow> runs = new ArrayList<>();

    private final List<EventRow> events = new ArrayList<>();

    private final List<EffectRow> effects = new ArrayList<>();

    @Test
    void cleanRunWithAKilledAttemptPassesAndIsExplained() {
        succeededAfterKilledAttempt();

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of("node-1.g1"));

        assertThat(report.violations()).isEmpty();
        assertThat(report.reexecuted).isOne();
        assertThat(report.explanations()).singleElement().asString().contains("kill -9");
    }

    @Test
    void runResumedOnceAfterItFailedPasses() {
        resumedAfterFailure();

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.violations()).isEmpty();
        assertThat(report.reexecuted).isZero();
    }

    @Test
    void runResumedTwiceOrWhileActiveIsReported() {
        resumedAfterFailure();
        events.add(4, event(run, 5, "RESUMED", 3, "operator", "resumed after FAILED"));
        events.add(1, event(run, 2, "RESUMED", 0, "operator", "resumed after QUEUED"));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.violations())
                .anySatisfy(violation -> assertThat(violation).contains("resumed 2 times"))
                .anySatisfy(violation -> assertThat(violation).contains("while active"));
    }

    /** Failed its first attempt before its effect, resumed by an operator, succeeded with attempt 2. */
    private void resumedAfterFailure() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "FAILED", 1, "w1", "upstream_unavailable"));
        events.add(event(run, 4, "RESUMED", 3, "operator", "resumed after FAILED"));
        events.add(event(run, 5, "CLAIMED", 4, "w2", "attempt 2"));
        events.add(event(run, 6, "SUCCEEDED", 6, "w2", "null"));
        effects.add(effect(run, 2, "node-2.g1", 4, 6));
    }

    @Test
    void secondRunForOneKeyIsADuplicate() {
        succeededAfterKilledAttempt();
        UUID second = UUID.randomUUID();
        runs.add(new RunRow(second, SCENARIO + ".k1", "SUCCEEDED", 1, T0, at(9)));
        events.add(event(second, 2, "CLAIMED", 1, "w3", "attempt 1"));
        events.add(event(second, 3, "SUCCEEDED", 2, "w3", "null"));
        effects.add(effect(second, 1, "node-3.g1", 1, 2));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of("node-1.g1"));

        assertThat(report.duplicateRuns).isOne();
    }

    @Test
    void answeredTriggerWithoutItsRunIsLost() {
        succeededAfterKilledAttempt();

        FaultReport report = check(Map.of("k1", List.of(ack(run), ack(UUID.randomUUID()))), Set.of("node-1.g1"));

        assertThat(report.lostTriggers).isOne();
        assertThat(report.duplicateRuns).isOne();
    }

    @Test
    void attemptStartedWhileTheEarlierOneHeldItsLeaseIsAnOverlap() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "LEASE_EXPIRED", 6, "maintenance", "attempt 1 lost its lease"));
        events.add(event(run, 4, "CLAIMED", 6, "w2", "attempt 2"));
        events.add(event(run, 5, "SUCCEEDED", 9, "w2", "null"));
        effects.add(effect(run, 1, "node-1.g1", 0, 5));
        effects.add(effect(run, 2, "node-2.g1", 3, 8));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.overlappingExecutions).isOne();
    }

    @Test
    void zombieWhoseStartWasRecordedAfterTheNextAttemptsIsNoOverlap() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(12)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "LEASE_EXPIRED", 5, "maintenance", "attempt 1 lost its lease"));
        events.add(event(run, 4, "CLAIMED", 6, "w2", "attempt 2"));
        events.add(event(run, 5, "SUCCEEDED", 9, "w2", "null"));
        // attempt 1's handler started at 0, but the database its start is written to was down until 7
        effects.add(effect(run, 1, "node-1.g1", 7, 12));
        effects.add(effect(run, 2, "node-2.g1", 6, 9));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.overlappingExecutions).isZero();
    }

    @Test
    void completionAcceptedFromAnAttemptThatLostItsClaimBreaksTheHistory() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "LEASE_EXPIRED", 6, "maintenance", "attempt 1 lost its lease"));
        events.add(event(run, 4, "CLAIMED", 6, "w2", "attempt 2"));
        events.add(event(run, 5, "SUCCEEDED", 7, "w1", "null"));
        effects.add(effect(run, 1, "node-1.g1", 0, 7));
        effects.add(effect(run, 2, "node-2.g1", 6, 8));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.eventViolations).isPositive();
    }

    @Test
    void stepRecordedByTheHolderIsNotAnOutcome() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "STEP_COMPLETED", 1, "w1", "write #1"));
        events.add(event(run, 4, "LEASE_EXPIRED", 6, "maintenance", "attempt 1 lost its lease"));
        events.add(event(run, 5, "CLAIMED", 7, "w2", "attempt 2"));
        events.add(event(run, 6, "SUCCEEDED", 9, "w2", "null"));
        effects.add(effect(run, 1, "node-1.g1", 0, 5));
        effects.add(effect(run, 2, "node-2.g1", 7, 8));

        assertThat(check(Map.of("k1", List.of(ack(run))), Set.of("node-1.g1")).violations())
                .isEmpty();
    }

    @Test
    void stepRecordedByAnAttemptThatLostItsClaimBreaksTheHistory() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "LEASE_EXPIRED", 6, "maintenance", "attempt 1 lost its lease"));
        events.add(event(run, 4, "CLAIMED", 7, "w2", "attempt 2"));
        events.add(event(run, 5, "STEP_COMPLETED", 8, "w1", "write #1"));
        events.add(event(run, 6, "SUCCEEDED", 9, "w2", "null"));
        effects.add(effect(run, 1, "node-1.g1", 0, 8));
        effects.add(effect(run, 2, "node-2.g1", 7, 8));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.eventViolations).isOne();
        assertThat(report.violations()).anyMatch(violation -> violation.contains("S-ST-3"));
    }

    @Test
    void reexecutionAfterAHandlerFailureIsNotExplainedByAFault() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "RETRY_SCHEDULED", 2, "w1", "boom"));
        events.add(event(run, 4, "CLAIMED", 3, "w2", "attempt 2"));
        events.add(event(run, 5, "SUCCEEDED", 5, "w2", "null"));
        effects.add(effect(run, 1, "node-1.g1", 0, 1));
        effects.add(effect(run, 2, "node-2.g1", 3, 4));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.unexplained).isOne();
    }

    @Test
    void runStillActiveAfterTheDrainIsStuck() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "RUNNING", 1, T0, null));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));

        FaultReport report = check(Map.of("k1", List.of(ack(run))), Set.of());

        assertThat(report.stuck).isOne();
    }

    private void succeededAfterKilledAttempt() {
        runs.add(new RunRow(run, SCENARIO + ".k1", "SUCCEEDED", 2, T0, at(10)));
        events.add(event(run, 2, "CLAIMED", 0, "w1", "attempt 1"));
        events.add(event(run, 3, "LEASE_EXPIRED", 6, "maintenance", "attempt 1 lost its lease"));
        events.add(event(run, 4, "CLAIMED", 7, "w2", "attempt 2"));
        events.add(event(run, 5, "SUCCEEDED", 9, "w2", "null"));
        effects.add(new EffectRow(UUID.randomUUID(), run, 1, "node-1.g1", 3000, at(0), null));
        effects.add(effect(run, 2, "node-2.g1", 7, 8));
    }

    private FaultReport check(Map<String, List<LoadDriver.Ack>> acks, Set<String> killed) {
        FaultReport report = new FaultReport(SCENARIO, 1);
        new InvariantCheck(new Evidence(runs, events, effects), acks, Set.of("k1"), killed, Set.of())
                .check(report, SCENARIO);
        return report;
    }

    private static LoadDriver.Ack ack(UUID runId) {
        return new LoadDriver.Ack("k1", runId, "CREATED", "node-1.g1");
    }

    private static EventRow event(UUID runId, int seq, String type, int second, String actor, String detail) {
        return new EventRow(runId, seq, type, type, at(second), actor, detail);
    }

    private static EffectRow effect(UUID runId, int attempt, String instance, int from, int to) {
        return new EffectRow(UUID.randomUUID(), runId, attempt, instance, (to - from) * 1000L, at(from), at(to));
    }

    private static Instant at(int second) {
        return T0.plusSeconds(second);
    }
}

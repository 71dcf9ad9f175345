package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.faults.Evidence.EffectRow;
import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import io.runlane.faults.TransactionalStepCheck.StepEvidence;
import io.runlane.faults.TransactionalStepCheck.StepRow;
import io.runlane.faults.TransactionalStepCheck.WrittenStep;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The transactional-step checker must be able to fail (S-ST-8, S-ST-15): a second committed row, a missing row, a
 * scenario whose kills never cut an open step, and a lease lost on a live instance are each reported; a run whose
 * killed step rolled back and whose retry committed once is not.
 */
class TransactionalStepCheckTests {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static final String KILLED = "node-1.g1";

    private static final String LIVE = "node-2.g1";

    private final UUID run = UUID.randomUUID();

    private final List<EventRow> events = new ArrayList<>();

    private final List<EffectRow> effects = new ArrayList<>();

    private final List<StepRow> rows = new ArrayList<>();

    private final Map<UUID, Integer> recorded = new HashMap<>();

    private final List<WrittenStep> written = new ArrayList<>();

    @Test
    void killedStepRolledBackAndRetriedOnceIsClean() {
        killedInStepThenSucceeded();

        FaultReport report = check();

        assertThat(report.violations()).isEmpty();
        assertThat(report.notes()).singleElement().asString().startsWith("1 transactional steps wrote their row");
    }

    @Test
    void secondCommittedRowIsReported() {
        killedInStepThenSucceeded();
        rows.add(new StepRow(run, 1, KILLED));

        assertThat(check().violations()).anyMatch(violation -> violation.contains("has 2 rows"));
    }

    @Test
    void missingRowAndRecordAreReported() {
        killedInStepThenSucceeded();
        rows.clear();
        recorded.clear();

        assertThat(check().violations())
                .anyMatch(violation -> violation.contains("has 0 rows"))
                .anyMatch(violation -> violation.contains("has 0 recorded steps"));
    }

    @Test
    void scenarioWhoseKillsCutNoOpenStepIsReported() {
        killedInStepThenSucceeded();
        written.removeIf(step -> step.attempt() == 1);

        assertThat(check().violations()).anyMatch(violation -> violation.contains("was not exercised"));
    }

    @Test
    void leaseLostOnALiveInstanceIsReported() {
        killedInStepThenSucceeded();
        UUID other = UUID.randomUUID();
        events.add(event(other, 2, "CLAIMED", 0, "attempt 1"));
        events.add(event(other, 3, "LEASE_EXPIRED", 6, "attempt 1 lost its lease"));
        effects.add(new EffectRow(UUID.randomUUID(), other, 1, LIVE, 8000, at(0), at(8)));

        assertThat(check().violations()).anyMatch(violation -> violation.contains("S-ST-15"));
    }

    /** Attempt 1 wrote its row on an instance that was then killed; attempt 2 wrote and committed it. */
    private void killedInStepThenSucceeded() {
        events.add(event(run, 2, "CLAIMED", 0, "attempt 1"));
        events.add(event(run, 3, "LEASE_EXPIRED", 6, "attempt 1 lost its lease"));
        events.add(event(run, 4, "CLAIMED", 7, "attempt 2"));
        events.add(event(run, 5, "SUCCEEDED", 9, "null"));
        effects.add(new EffectRow(UUID.randomUUID(), run, 1, KILLED, 3000, at(0), null));
        effects.add(new EffectRow(UUID.randomUUID(), run, 2, LIVE, 1000, at(7), at(8)));
        written.add(new WrittenStep(run, 1, KILLED));
        written.add(new WrittenStep(run, 2, LIVE));
        rows.add(new StepRow(run, 2, LIVE));
        recorded.put(run, 1);
    }

    private FaultReport check() {
        FaultReport report = new FaultReport("unit", 1);
        Evidence evidence =
                new Evidence(List.of(new RunRow(run, "unit.k1", "SUCCEEDED", 2, T0, at(9))), events, effects);
        new TransactionalStepCheck(evidence, new StepEvidence(rows, recorded, written), Set.of(KILLED)).check(report);
        return report;
    }

    private static EventRow event(UUID runId, int seq, String type, int second, String detail) {
        return new EventRow(runId, seq, type, type, at(second), "w", detail);
    }

    private static Instant at(int second) {
        return T0.plusSeconds(second);
    }
}

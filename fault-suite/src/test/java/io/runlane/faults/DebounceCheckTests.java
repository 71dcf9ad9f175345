package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.faults.DebounceCheck.PayloadRow;
import io.runlane.faults.DebounceLoad.Answer;
import io.runlane.faults.DebounceLoad.Sent;
import io.runlane.faults.Evidence.EffectRow;
import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The debounce scenario's checker must be able to fail: each broken debounce promise (S-DB-1 to S-DB-4), written as
 * the evidence it would leave, is reported, and two clean windows of one key are not.
 */
class DebounceCheckTests {

    private static final String SCENARIO = "debounce";

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final UUID first = UUID.randomUUID();

    private final UUID second = UUID.randomUUID();

    private final List<RunRow> runs = new ArrayList<>();

    private final List<EventRow> events = new ArrayList<>();

    private final List<EffectRow> effects = new ArrayList<>();

    private final List<PayloadRow> payloads = new ArrayList<>();

    private final List<Answer> answers = new ArrayList<>();

    private final Set<Sent> uncertain = new HashSet<>();

    private final Set<Sent> late = new HashSet<>();

    @Test
    void twoWindowsOfOneKeyPass() {
        twoWindows();

        FaultReport report = check();

        assertThat(report.violations()).isEmpty();
        assertThat(report.keys).isOne();
        assertThat(report.runs).isEqualTo(2);
    }

    @Test
    void runCreatedWhileTheKeysRunWasPendingIsADuplicate() {
        // S-DB-4: the second window's run created 0.5 s after the first, which was pending until 1.3 s.
        runs.add(new RunRow(first, SCENARIO + ".k1", "SUCCEEDED", 1, T0, at(2000)));
        events.add(event(first, 1, "DEBOUNCED", 300, "due at ..."));
        events.add(event(first, 2, "CLAIMED", 1300, "attempt 1"));
        events.add(event(first, 3, "SUCCEEDED", 2000, "null"));
        ranWith(first, 1300, 2000, 2);
        runs.add(new RunRow(second, SCENARIO + ".k1", "SUCCEEDED", 1, at(500), at(2500)));
        events.add(event(second, 1, "CLAIMED", 1500, "attempt 1"));
        events.add(event(second, 2, "SUCCEEDED", 2500, "null"));
        ranWith(second, 1500, 2500, 3);
        answers.add(answer(1, first, "CREATED"));
        answers.add(answer(2, first, "DEBOUNCED"));
        answers.add(answer(3, second, "CREATED"));

        FaultReport report = check();

        assertThat(report.duplicateRuns).isOne();
        assertThat(report.violations()).anyMatch(violation -> violation.contains("was pending"));
    }

    @Test
    void foldIntoAnEarlierRunAfterALaterOneWasNamedIsADuplicate() {
        twoWindows();
        answers.add(answer(4, first, "DEBOUNCED"));

        FaultReport report = check();

        assertThat(report.duplicateRuns).isOne();
        assertThat(report.violations()).anyMatch(violation -> violation.contains("pending at once"));
    }

    @Test
    void runThatRanAnOlderPayloadThanAnAnsweredFoldLostATrigger() {
        twoWindows();
        payloads.replaceAll(row -> row.runId().equals(first) ? new PayloadRow(first, 1, 1) : row);

        FaultReport report = check();

        assertThat(report.lostTriggers).isOne();
        assertThat(report.violations()).anyMatch(violation -> violation.contains("S-DB-2"));
    }

    @Test
    void olderPayloadOfALateTriggerIsNotReported() {
        twoWindows();
        payloads.replaceAll(row -> row.runId().equals(first) ? new PayloadRow(first, 1, 1) : row);
        uncertain.add(new Sent("k1", 1));
        late.add(new Sent("k1", 1));

        FaultReport report = check();

        assertThat(report.violations()).isEmpty();
    }

    @Test
    void payloadNoTriggerFoldedIntoTheRunIsReported() {
        twoWindows();
        payloads.replaceAll(row -> row.runId().equals(second) ? new PayloadRow(second, 1, 7) : row);

        FaultReport report = check();

        assertThat(report.violations()).anyMatch(violation -> violation.contains("which no trigger folded"));
    }

    @Test
    void answeredFoldWithoutItsEventIsLost() {
        twoWindows();
        events.removeIf(event -> event.type().equals("DEBOUNCED"));

        FaultReport report = check();

        assertThat(report.lostTriggers).isOne();
        assertThat(report.violations()).anyMatch(violation -> violation.contains("S-DB-6"));
    }

    @Test
    void answeredTriggerWhoseRunDoesNotExistIsLost() {
        twoWindows();
        answers.add(answer(4, UUID.randomUUID(), "CREATED"));

        FaultReport report = check();

        assertThat(report.lostTriggers).isOne();
    }

    @Test
    void claimBeforeOnePeriodAfterTheLastFoldIsReported() {
        twoWindows();
        events.replaceAll(event -> event.runId().equals(first) && event.type().equals("CLAIMED")
                ? event(first, event.seq(), "CLAIMED", 900, "attempt 1")
                : event);

        FaultReport report = check();

        assertThat(report.violations()).anyMatch(violation -> violation.contains("S-DB-1"));
    }

    @Test
    void foldAfterTheFirstClaimIsAHistoryViolation() {
        twoWindows();
        events.add(event(first, 4, "DEBOUNCED", 1800, "due at ..."));

        FaultReport report = check();

        assertThat(report.eventViolations).isPositive();
        assertThat(report.violations()).anyMatch(violation -> violation.contains("S-DB-3"));
    }

    /**
     * Key {@code k1}: trigger 1 creates the first run, trigger 2 folds into it at 0.3 s, it is claimed at 1.3 s and
     * runs payload 2; trigger 3 creates the second run at 3 s, which runs payload 3.
     */
    private void twoWindows() {
        runs.add(new RunRow(first, SCENARIO + ".k1", "SUCCEEDED", 1, T0, at(2000)));
        events.add(event(first, 1, "DEBOUNCED", 300, "due at ..."));
        events.add(event(first, 2, "CLAIMED", 1300, "attempt 1"));
        events.add(event(first, 3, "SUCCEEDED", 2000, "null"));
        ranWith(first, 1300, 2000, 2);
        runs.add(new RunRow(second, SCENARIO + ".k1", "SUCCEEDED", 1, at(3000), at(4500)));
        events.add(event(second, 1, "CLAIMED", 4000, "attempt 1"));
        events.add(event(second, 2, "SUCCEEDED", 4500, "null"));
        ranWith(second, 4000, 4500, 3);
        answers.add(answer(1, first, "CREATED"));
        answers.add(answer(2, first, "DEBOUNCED"));
        answers.add(answer(3, second, "CREATED"));
    }

    private void ranWith(UUID runId, long fromMillis, long toMillis, long seq) {
        effects.add(new EffectRow(
                UUID.randomUUID(), runId, 1, "node-1.g1", toMillis - fromMillis, at(fromMillis), at(toMillis)));
        payloads.add(new PayloadRow(runId, 1, seq));
    }

    private FaultReport check() {
        FaultReport report = new FaultReport(SCENARIO, 1);
        Evidence evidence = new Evidence(runs, events, effects);
        new InvariantCheck(evidence, Map.of(), Set.of(), Set.of(), Set.of()).check(report, SCENARIO);
        new DebounceCheck(evidence, payloads, answers, uncertain, late, 1, Duration.ofSeconds(1))
                .check(report, SCENARIO);
        return report;
    }

    private static Answer answer(long seq, UUID runId, String outcome) {
        return new Answer("k1", seq, runId, outcome, "node-1.g1");
    }

    private static EventRow event(UUID runId, int seq, String type, long millis, String detail) {
        return new EventRow(runId, seq, type, type, at(millis), type.equals("DEBOUNCED") ? "runlane" : "w1", detail);
    }

    private static Instant at(long millis) {
        return T0.plusMillis(millis);
    }
}

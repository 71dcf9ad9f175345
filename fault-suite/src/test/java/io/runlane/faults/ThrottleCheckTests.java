package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import io.runlane.faults.ThrottleLoad.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The throttle checker must be able to fail: a history with one start too many in a window, or a run dropped, is
 * reported, and a key at its limit, retried runs and handed-back claims included, is not (S-TH-1..3).
 */
class ThrottleCheckTests {

    private static final String SCENARIO = "clock-skew";

    private static final String KEY = SCENARIO + ".t0";

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static final int LIMIT = 2;

    private final List<RunRow> runs = new ArrayList<>();

    private final List<EventRow> events = new ArrayList<>();

    private final List<Answer> answers = new ArrayList<>();

    private String skewed = "w1";

    @Test
    @DisplayName("S-TH-1: a key whose every third start comes exactly one period after the first passes")
    void keyAtItsLimitPasses() {
        atTheLimit();

        FaultReport report = check();

        assertThat(report.violations()).isEmpty();
        assertThat(report.line())
                .contains(" throttle_window_violations=0 ")
                .contains(" dropped_throttled_runs=0 ")
                .contains(" throttle_tightest_window_ms=1000 ");
    }

    @Test
    @DisplayName("S-TH-1, S-TH-3: three starts of one key within a period, by one microsecond, are a violation")
    void oneStartTooManyInAWindowIsReported() {
        atTheLimit();
        // The third run's start 1 µs early: it falls inside the first start's window.
        events.replaceAll(event -> event.runId().equals(runs.get(2).id())
                        && event.type().equals("CLAIMED")
                ? claimed(event.runId(), event.seq(), T0.plusMillis(1000).minusNanos(1000))
                : event);

        FaultReport report = check();

        assertThat(report.line()).contains(" throttle_window_violations=1 ");
        assertThat(report.violations()).anyMatch(violation -> violation.contains("999999 µs"));
    }

    @Test
    @DisplayName("S-TH-1: a retry's start counts like a first attempt's")
    void retryStartsCount() {
        atTheLimit();
        // The second run failed its attempt at 300 ms and was claimed again at 600 ms: three starts by 600 ms.
        UUID retried = runs.get(1).id();
        events.removeIf(event -> event.runId().equals(retried));
        events.add(claimed(retried, 1, at(10)));
        events.add(new EventRow(retried, 2, "RETRYING", "RETRYING", at(300), "w1", "boom"));
        events.add(claimed(retried, 3, at(600)));
        events.add(succeeded(retried, 4, at(650)));

        FaultReport report = check();

        assertThat(report.line()).doesNotContain(" throttle_window_violations=0 ");
        assertThat(report.violations()).anyMatch(violation -> violation.contains("S-TH-1"));
    }

    @Test
    @DisplayName("S-EX-17, S-TH-1: a claim handed back before its handler started is no attempt and does not count")
    void handedBackClaimIsNoStart() {
        atTheLimit();
        UUID third = runs.get(2).id();
        events.removeIf(event -> event.runId().equals(third));
        events.add(claimed(third, 1, at(100)));
        events.add(new EventRow(third, 2, "HANDED_BACK", "QUEUED", at(150), "w1", "attempt 1 never started"));
        events.add(claimed(third, 3, at(1000)));
        events.add(succeeded(third, 4, at(1050)));

        FaultReport report = check();

        assertThat(report.violations()).isEmpty();
    }

    @Test
    @DisplayName("S-TH-3: a skewed instance that started no throttled attempt leaves the skew unexercised")
    void skewedInstanceWithoutStartsIsReported() {
        atTheLimit();
        skewed = "w3";

        FaultReport report = check();

        assertThat(report.line()).contains(" throttled_starts_on_skewed_instance=0 ");
        assertThat(report.violations()).anyMatch(violation -> violation.contains("not exercised"));
    }

    @Test
    @DisplayName("S-TH-2: an answered trigger whose run does not exist is dropped")
    void answeredTriggerWithoutItsRunIsDropped() {
        atTheLimit();
        answers.add(new Answer("t0", 9, UUID.randomUUID(), "CREATED", "node-1.g1"));

        FaultReport report = check();

        assertThat(report.line()).contains(" dropped_throttled_runs=1 ");
    }

    @Test
    @DisplayName("S-TH-2: a throttled run that never started is dropped")
    void runThatNeverStartedIsDropped() {
        atTheLimit();
        RunRow last = runs.get(runs.size() - 1);
        runs.set(runs.size() - 1, new RunRow(last.id(), last.key(), "QUEUED", 0, T0, null));
        events.removeIf(event -> event.runId().equals(last.id()));

        FaultReport report = check();

        assertThat(report.line()).contains(" dropped_throttled_runs=1 ");
        assertThat(report.violations()).anyMatch(violation -> violation.contains("ended QUEUED"));
    }

    @Test
    @DisplayName("S-TH-2: two triggers answered with one run lost one of them")
    void twoTriggersAnsweredWithOneRunAreReported() {
        atTheLimit();
        answers.add(new Answer("t0", 99, runs.get(0).id(), "RETURNED_EXISTING", "node-2.g1"));

        FaultReport report = check();

        assertThat(report.line()).contains(" dropped_throttled_runs=1 ");
    }

    /**
     * Six runs of key {@code t0} at its limit of 2 per second: starts at 0 and 10 ms, then each one period after the
     * start two before it (1000, 1010, 2000, 2010 ms); a second key started at the same times does not count against
     * the first.
     */
    private void atTheLimit() {
        long[] startsMillis = {0, 10, 1000, 1010, 2000, 2010};
        for (int i = 0; i < startsMillis.length; i++) {
            for (String key : List.of(KEY, SCENARIO + ".t1")) {
                UUID id = UUID.randomUUID();
                Instant started = at(startsMillis[i]);
                runs.add(new RunRow(id, key, "SUCCEEDED", 1, T0, started.plusMillis(50)));
                events.add(claimed(id, 1, started));
                events.add(succeeded(id, 2, started.plusMillis(50)));
                answers.add(new Answer(key.substring(SCENARIO.length() + 1), i + 1, id, "CREATED", "node-3.g2"));
            }
        }
        runs.sort((a, b) -> a.key().compareTo(b.key()));
    }

    private FaultReport check() {
        FaultReport report = new FaultReport(SCENARIO, 1);
        new ThrottleCheck(new Evidence(runs, events, List.of()), answers, LIMIT, Duration.ofSeconds(1), skewed)
                .check(report, SCENARIO);
        return report;
    }

    private static EventRow claimed(UUID runId, int seq, Instant at) {
        return new EventRow(runId, seq, "CLAIMED", "RUNNING", at, "w1", "attempt " + seq);
    }

    private static EventRow succeeded(UUID runId, int seq, Instant at) {
        return new EventRow(runId, seq, "SUCCEEDED", "SUCCEEDED", at, "w1", "null");
    }

    private static Instant at(long millis) {
        return T0.plusMillis(millis);
    }
}

package io.runlane.faults;

import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import io.runlane.faults.ThrottleLoad.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Checks the throttled runs of the {@code clock-skew} scenario against the throttle's promises, from the database
 * alone:
 *
 * <ol>
 *   <li><b>The window</b> (S-TH-1, S-TH-3; {@code throttle_window_violations}): for each throttle key, its attempt
 *       starts sorted by time, the (i+N)-th is at least one period after the i-th. A start is a {@code CLAIMED} event,
 *       whose time is the claim's statement time on the database clock, the attempt's {@code startedAt}; a claim
 *       handed back before its handler started ({@code HANDED_BACK} before the run's next claim, S-EX-17) is no
 *       attempt and does not count. No tolerance: the database's clock is the judge, whatever the instances' clocks
 *       say.
 *   <li><b>Nothing dropped</b> (S-TH-2; {@code dropped_throttled_runs}): every answered trigger names an existing run
 *       of its key, its own (two triggers of different numbers never name one run), and every throttled run of the
 *       scenario {@code SUCCEEDED}.
 * </ol>
 *
 * <p>Also reported, not asserted: the runs, their starts, the tightest window of {@code N + 1} consecutive starts of a
 * key ({@code throttle_tightest_window_ms}), which is close to the period when the load kept the keys at their limit
 * and the window's edge was exercised, and the starts of the instance whose clock is off ({@code
 * throttled_starts_on_skewed_instance}); none at all means the skew was not exercised, which is reported as broken.
 */
final class ThrottleCheck {

    private final Evidence evidence;

    private final List<Answer> answers;

    private final int limit;

    private final Duration period;

    private final @Nullable String skewedWorker;

    /**
     * With {@code skewedWorker}, the worker id of the instance whose clock is off, whose starts must be among the
     * keys' or the skew was not exercised; {@code null} when no instance is skewed.
     */
    ThrottleCheck(Evidence evidence, List<Answer> answers, int limit, Duration period, @Nullable String skewedWorker) {
        this.evidence = evidence;
        this.answers = answers;
        this.limit = limit;
        this.period = period;
        this.skewedWorker = skewedWorker;
    }

    void check(FaultReport report, String scenario) {
        Map<UUID, List<EventRow>> events = evidence.eventsByRun();
        Map<String, List<Instant>> starts = new HashMap<>();
        long skewedStarts = 0;
        for (RunRow run : evidence.runs()) {
            List<EventRow> claims = starts(events.getOrDefault(run.id(), List.of()));
            skewedStarts += claims.stream()
                    .filter(claim -> claim.actor().equals(skewedWorker))
                    .count();
            starts.computeIfAbsent(run.key(), key -> new ArrayList<>())
                    .addAll(claims.stream().map(EventRow::at).toList());
        }
        long violations = 0;
        long tightest = Long.MAX_VALUE;
        for (Map.Entry<String, List<Instant>> key : starts.entrySet()) {
            List<Instant> sorted = key.getValue().stream().sorted().toList();
            for (int i = 0; i + limit < sorted.size(); i++) {
                Duration between = Duration.between(sorted.get(i), sorted.get(i + limit));
                tightest = Math.min(tightest, between.toMillis());
                if (between.compareTo(period) < 0) {
                    violations++;
                    report.violation("throttle key " + key.getKey() + ": " + (limit + 1) + " attempt starts within "
                            + between.toNanos() / 1000 + " µs, from " + sorted.get(i) + " to " + sorted.get(i + limit)
                            + ", less than the period " + period + " (S-TH-1, S-TH-3)");
                }
            }
        }
        report.invariant("throttle_window_violations", violations);
        report.invariant("dropped_throttled_runs", dropped(report, scenario));
        report.figure("throttled_runs", evidence.runs().size());
        report.figure(
                "throttled_starts",
                starts.values().stream().mapToLong(List::size).sum());
        if (tightest != Long.MAX_VALUE) {
            report.figure("throttle_tightest_window_ms", tightest);
        }
        if (skewedWorker != null) {
            report.figure("throttled_starts_on_skewed_instance", skewedStarts);
            if (skewedStarts == 0) {
                report.violation("the instance whose clock is off started no throttled attempt, so a throttle judged"
                        + " across skewed clocks (S-TH-3) was not exercised");
            }
        }
    }

    /** The answered triggers whose run is missing, not their own or not {@code SUCCEEDED}, and the runs that did not. */
    private long dropped(FaultReport report, String scenario) {
        Map<UUID, RunRow> runs = evidence.runs().stream().collect(Collectors.toMap(RunRow::id, Function.identity()));
        Set<UUID> dropped = new LinkedHashSet<>();
        Map<UUID, Set<Long>> seqsByRun = new HashMap<>();
        for (Answer answer : answers) {
            RunRow run = runs.get(answer.runId());
            if (run == null || !run.key().equals(scenario + "." + answer.key())) {
                dropped.add(answer.runId());
                report.violation(
                        answer.runId(),
                        "throttle key " + answer.key() + ": trigger " + answer.seq() + " answered by "
                                + answer.instance() + " (" + answer.outcome() + ") but no run of its key exists"
                                + " (S-TH-2)");
                continue;
            }
            seqsByRun.computeIfAbsent(run.id(), id -> new LinkedHashSet<>()).add(answer.seq());
        }
        seqsByRun.forEach((runId, seqs) -> {
            if (seqs.size() > 1 && dropped.add(runId)) {
                report.violation(runId, "triggers " + seqs + " of one throttle key were answered with this one run");
            }
        });
        evidence.runs().stream()
                .filter(run -> !run.status().equals("SUCCEEDED"))
                .sorted(Comparator.comparing(RunRow::createdAt))
                .forEach(run -> {
                    if (dropped.add(run.id())) {
                        report.violation(
                                run.id(),
                                "throttled run of key " + run.key() + " ended " + run.status() + ", not SUCCEEDED"
                                        + " (S-TH-2)");
                    }
                });
        return dropped.size();
    }

    /** The run's attempt starts: its claims, less those handed back before the next claim (S-EX-17). */
    static List<EventRow> starts(List<EventRow> events) {
        List<EventRow> sorted =
                events.stream().sorted(Comparator.comparingInt(EventRow::seq)).toList();
        List<EventRow> starts = new ArrayList<>();
        EventRow claim = null;
        for (EventRow event : sorted) {
            if (event.type().equals("CLAIMED")) {
                if (claim != null) {
                    starts.add(claim);
                }
                claim = event;
            } else if (event.type().equals("HANDED_BACK")) {
                claim = null;
            }
        }
        if (claim != null) {
            starts.add(claim);
        }
        return starts;
    }
}

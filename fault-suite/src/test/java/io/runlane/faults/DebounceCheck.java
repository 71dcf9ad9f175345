package io.runlane.faults;

import io.runlane.faults.DebounceLoad.Answer;
import io.runlane.faults.DebounceLoad.Sent;
import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Checks the {@code debounce} scenario's evidence against the debounce promises (S-DB), next to the promises of
 * {@link InvariantCheck} that every run keeps (its history, no overlap, re-executions explained, every run {@code
 * SUCCEEDED}):
 *
 * <ol>
 *   <li><b>One run per window</b> (S-DB-3, S-DB-4; {@code duplicate_runs}): no two runs of one key were pending at
 *       once, a run being pending from its creation to its first claim; the answers of a key's triggers, in the order
 *       they were sent one after another, never name a run again once a later run of the key was named; and no two
 *       triggers were answered as having created the same run.
 *   <li><b>Nothing lost</b> (S-DB-1, S-DB-2, S-DB-6; {@code lost_triggers}): every answered trigger names an existing
 *       run of its key, as {@code CREATED} or {@code DEBOUNCED}; every answered fold left its {@code DEBOUNCED} event;
 *       and every attempt of a run ran with the latest payload folded into it before its claim: not an older one than
 *       an answered fold's, and none that no trigger of its key sent.
 *   <li><b>Due time</b> (S-DB-1): no run was claimed before one period after its creation and after its last fold.
 * </ol>
 *
 * <p>Pending times are the statements' start times ({@code statement_timestamp()}), not their commits: a trigger whose
 * statement started just before a claim's and waited for the claim's row lock creates the next run with an earlier
 * time than the claim's. Two pending times overlapping by more than {@link #CONCURRENT_STATEMENTS} count.
 */
final class DebounceCheck {

    /** How far two statements that waited for each other may put their start times out of their commit order. */
    static final Duration CONCURRENT_STATEMENTS = Duration.ofMillis(250);

    private static final String PAYLOADS = """
            SELECT run_id, attempt, payload_seq FROM %s.effects WHERE scenario = ? AND payload_seq IS NOT NULL
            """;

    /** The number of the payload an attempt's handler ran with, from the effect log. */
    record PayloadRow(UUID runId, int attempt, long seq) {}

    private final Evidence evidence;

    private final List<PayloadRow> payloads;

    private final List<Answer> answers;

    private final Set<Sent> uncertain;

    private final Set<Sent> late;

    private final int keys;

    private final Duration period;

    DebounceCheck(Evidence evidence, List<PayloadRow> payloads, DebounceLoad load, Duration period) {
        this(evidence, payloads, load.answers(), load.uncertain(), load.late(), load.keys(), period);
    }

    DebounceCheck(
            Evidence evidence,
            List<PayloadRow> payloads,
            List<Answer> answers,
            Set<Sent> uncertain,
            Set<Sent> late,
            int keys,
            Duration period) {
        this.evidence = evidence;
        this.payloads = payloads;
        this.answers = answers;
        this.uncertain = uncertain;
        this.late = late;
        this.keys = keys;
        this.period = period;
    }

    /** The payload numbers the scenario's handlers recorded. */
    static List<PayloadRow> loadPayloads(FaultCluster cluster, String scenario) throws SQLException {
        List<PayloadRow> rows = new ArrayList<>();
        try (Connection connection = cluster.connectEffects();
                PreparedStatement statement = connection.prepareStatement(PAYLOADS.formatted(cluster.effectSchema()))) {
            statement.setString(1, scenario);
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    rows.add(new PayloadRow(rs.getObject(1, UUID.class), rs.getInt(2), rs.getLong(3)));
                }
            }
        }
        return rows;
    }

    void check(FaultReport report, String scenario) {
        report.keys = keys;
        Map<UUID, RunRow> runs = evidence.runs().stream().collect(Collectors.toMap(RunRow::id, Function.identity()));
        Map<UUID, List<EventRow>> events = evidence.eventsByRun();
        Map<UUID, List<Answer>> answered = answers.stream().collect(Collectors.groupingBy(Answer::runId));
        checkAnswers(report, scenario, runs);
        checkAnswerOrder(report);
        checkPendingWindows(report, scenario, runs.values(), events);
        for (RunRow run : runs.values()) {
            List<EventRow> runEvents = events.getOrDefault(run.id(), List.of());
            List<Answer> runAnswers = answered.getOrDefault(run.id(), List.of());
            checkFolds(report, run, runEvents, runAnswers);
            checkDue(report, run, runEvents);
            checkPayload(report, scenario, run, runAnswers);
        }
        report.figure(
                "folded_triggers",
                answers.stream().filter(a -> a.outcome().equals("DEBOUNCED")).count());
    }

    /** Every answered trigger names an existing run of its key, which it created or folded into. */
    private void checkAnswers(FaultReport report, String scenario, Map<UUID, RunRow> runs) {
        Map<UUID, Long> creations = new HashMap<>();
        for (Answer answer : answers) {
            RunRow run = runs.get(answer.runId());
            if (!answer.outcome().equals("CREATED") && !answer.outcome().equals("DEBOUNCED")) {
                report.violation(
                        answer.runId(),
                        "key " + answer.key() + " trigger " + answer.seq() + " answered " + answer.outcome()
                                + ", neither CREATED nor DEBOUNCED (S-DB-1)");
            }
            if (run == null) {
                report.lostTriggers++;
                report.violation(
                        answer.runId(),
                        "key " + answer.key() + ": trigger " + answer.seq() + " answered by " + answer.instance() + " ("
                                + answer.outcome() + ") but the run does not exist");
                continue;
            }
            if (!run.key().equals(scenario + "." + answer.key())) {
                report.lostTriggers++;
                report.violation(
                        run.id(),
                        "key " + answer.key() + ": trigger " + answer.seq() + " answered with a run of debounce key "
                                + run.key());
            }
            if (answer.outcome().equals("CREATED")) {
                creations.merge(run.id(), 1L, Long::sum);
            }
        }
        creations.forEach((runId, count) -> {
            if (count > 1) {
                report.duplicateRuns += (int) (count - 1);
                report.violation(runId, count + " triggers were answered as having created this run (S-DB-4)");
            }
        });
    }

    /**
     * A key's triggers went one after another, so their answers name its runs window by window: once a later run was
     * named, an earlier one folding a trigger again means both were pending at once (S-DB-4). A late trigger may have
     * been stored after later ones, so its answer is left out.
     */
    private void checkAnswerOrder(FaultReport report) {
        Map<String, List<Answer>> byKey = answers.stream()
                .filter(answer -> !late.contains(new Sent(answer.key(), answer.seq())))
                .collect(Collectors.groupingBy(Answer::key));
        byKey.forEach((key, keyAnswers) -> {
            List<UUID> windows = new ArrayList<>();
            keyAnswers.stream().sorted(Comparator.comparingLong(Answer::seq)).forEach(answer -> {
                int window = windows.indexOf(answer.runId());
                if (window < 0) {
                    windows.add(answer.runId());
                } else if (window < windows.size() - 1) {
                    report.duplicateRuns++;
                    report.violation(
                            answer.runId(),
                            "key " + key + ": trigger " + answer.seq() + " was answered with this run after run "
                                    + windows.get(windows.size() - 1) + " of the key had been named: two runs were"
                                    + " pending at once (S-DB-4)");
                }
            });
        });
    }

    /**
     * No two runs of one key were pending at once: from its creation to its first claim (or its end). Reports, not
     * asserted, how often the next window's run was created within {@link #CONCURRENT_STATEMENTS} of the last one's
     * claim ({@code claim_races}, the race of S-DB-4) and how often while the last one was still running ({@code
     * windows_while_running}, S-DB-3).
     */
    private void checkPendingWindows(
            FaultReport report, String scenario, Iterable<RunRow> runs, Map<UUID, List<EventRow>> events) {
        Map<String, List<RunRow>> byKey = new HashMap<>();
        runs.forEach(run ->
                byKey.computeIfAbsent(run.key(), key -> new ArrayList<>()).add(run));
        long[] races = {0};
        long[] whileRunning = {0};
        byKey.forEach((key, keyRuns) -> {
            List<RunRow> sorted = keyRuns.stream()
                    .sorted(Comparator.comparing(RunRow::createdAt))
                    .toList();
            for (int i = 0; i < sorted.size(); i++) {
                RunRow earlier = sorted.get(i);
                Instant pendingUntil = pendingUntil(earlier, events.getOrDefault(earlier.id(), List.of()));
                if (i + 1 < sorted.size() && pendingUntil != null) {
                    Instant next = sorted.get(i + 1).createdAt();
                    if (Duration.between(pendingUntil, next).abs().compareTo(CONCURRENT_STATEMENTS) <= 0) {
                        races[0]++;
                    }
                    if (earlier.finishedAt() != null && next.isBefore(earlier.finishedAt())) {
                        whileRunning[0]++;
                    }
                }
                for (int j = i + 1; j < sorted.size(); j++) {
                    RunRow later = sorted.get(j);
                    if (pendingUntil == null
                            || Duration.between(later.createdAt(), pendingUntil).compareTo(CONCURRENT_STATEMENTS) > 0) {
                        report.duplicateRuns++;
                        report.violation(
                                later.id(),
                                "key " + key.substring(scenario.length() + 1) + ": created at " + later.createdAt()
                                        + " while run " + earlier.id() + " was pending (created at "
                                        + earlier.createdAt() + ", pending until "
                                        + (pendingUntil == null ? "the end" : pendingUntil) + ") (S-DB-4)");
                    }
                }
            }
        });
        report.figure("claim_races", races[0]);
        report.figure("windows_while_running", whileRunning[0]);
    }

    /** Every fold answered as {@code DEBOUNCED} left its event (S-DB-6); more events are folds of unanswered tries. */
    private void checkFolds(FaultReport report, RunRow run, List<EventRow> events, List<Answer> runAnswers) {
        long folds = events.stream().filter(e -> e.type().equals("DEBOUNCED")).count();
        long answeredFolds = runAnswers.stream()
                .filter(answer -> answer.outcome().equals("DEBOUNCED"))
                .count();
        if (folds < answeredFolds) {
            report.lostTriggers += (int) (answeredFolds - folds);
            report.violation(
                    run.id(),
                    answeredFolds + " triggers were answered as folded into this run, but it has " + folds
                            + " DEBOUNCED events (S-DB-6)");
        }
    }

    /** The first claim came no earlier than one period after the creation and after the last fold (S-DB-1). */
    private void checkDue(FaultReport report, RunRow run, List<EventRow> events) {
        Instant claimed = firstClaim(events);
        if (claimed == null) {
            return;
        }
        Instant lastTrigger = events.stream()
                .filter(e -> e.type().equals("DEBOUNCED"))
                .map(EventRow::at)
                .filter(at -> at.isBefore(claimed))
                .max(Comparator.naturalOrder())
                .filter(at -> at.isAfter(run.createdAt()))
                .orElse(run.createdAt());
        Instant due = lastTrigger.plus(period);
        if (claimed.isBefore(due)) {
            report.violation(
                    run.id(),
                    "claimed at " + claimed + ", before its due time " + due + " one period after its last trigger"
                            + " (S-DB-1)");
        }
    }

    /**
     * Every attempt ran with one payload, the latest folded into the run before its claim (S-DB-2): not older than an
     * answered fold's (unless that older trigger was late, so it may have been stored last), and one a trigger of the
     * key sent to this run (answered with it, or uncertain).
     */
    private void checkPayload(FaultReport report, String scenario, RunRow run, List<Answer> runAnswers) {
        Set<Long> seqs = payloads.stream()
                .filter(row -> row.runId().equals(run.id()))
                .map(PayloadRow::seq)
                .collect(Collectors.toCollection(TreeSet::new));
        if (seqs.isEmpty()) {
            return;
        }
        if (seqs.size() > 1) {
            report.violation(run.id(), "its attempts ran with different payloads " + seqs + " (S-DB-3)");
        }
        String key = run.key().substring(scenario.length() + 1);
        long ran = seqs.iterator().next();
        Set<Long> answeredSeqs = runAnswers.stream().map(Answer::seq).collect(Collectors.toSet());
        if (!answeredSeqs.contains(ran) && !uncertain.contains(new Sent(key, ran))) {
            report.violation(
                    run.id(),
                    "ran with payload " + ran + " of key " + key + ", which no trigger folded into it; answered "
                            + new TreeSet<>(answeredSeqs) + " (S-DB-2)");
        }
        long latest = answeredSeqs.stream().mapToLong(Long::longValue).max().orElse(ran);
        if (ran < latest && !late.contains(new Sent(key, ran))) {
            report.lostTriggers++;
            report.violation(
                    run.id(),
                    "ran with payload " + ran + " of key " + key + ", although trigger " + latest
                            + " was answered as folded into it later, before its claim (S-DB-2)");
        }
    }

    private static @Nullable Instant firstClaim(List<EventRow> events) {
        return events.stream()
                .filter(e -> e.type().equals("CLAIMED"))
                .map(EventRow::at)
                .min(Comparator.naturalOrder())
                .orElse(null);
    }

    /** When a run stopped being pending: its first claim, or its end if it ended unclaimed; {@code null}: never. */
    private static @Nullable Instant pendingUntil(RunRow run, List<EventRow> events) {
        Instant claimed = firstClaim(events);
        return claimed != null ? claimed : run.finishedAt();
    }
}

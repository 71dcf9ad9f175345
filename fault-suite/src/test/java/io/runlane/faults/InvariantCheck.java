package io.runlane.faults;

import io.runlane.faults.Evidence.EffectRow;
import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Checks a scenario's evidence against Runlane's promises and fills a {@link FaultReport}:
 *
 * <ol>
 *   <li><b>No duplicate</b> (S-IK-1): each key has one run, and every answered trigger of a key named that run.
 *   <li><b>No loss</b> (S-TR-1): every run id a trigger answered with exists; every run ended {@code SUCCEEDED}
 *       after the drain ({@code stuck} counts those still active, {@code failed} those that ended otherwise).
 *   <li><b>History</b> (S-RL-2, S-EX-1, S-EX-3, S-ST-3): replaying a run's events, an attempt is claimed only when
 *       no other holds the run, and every outcome but a lease expiry, and every recorded step, comes from the worker
 *       that holds the claim, so a zombie's completion or step that was accepted shows up here. The run succeeded
 *       exactly once. A {@code RESUMED} event (S-RV-1) may follow a {@code FAILED} or {@code CANCELLED} one, once;
 *       a {@code DEBOUNCED} event (S-DB-3) comes only before the first claim.
 *   <li><b>No overlap</b> (S-EX-1, S-EX-7): two attempts of one run whose effects overlap are allowed only when the
 *       earlier attempt had lost its lease (its {@code LEASE_EXPIRED} event) before the later effect began.
 *   <li><b>Re-executions explained</b>: every effect of a run before its successful attempt belongs to an attempt
 *       whose lease expired: its process was killed or stopped mid-attempt, or its handler finished but the outcome
 *       could not be recorded before the lease expired (a zombie whose completion was refused). Anything else is a
 *       violation.
 *   <li><b>The work happened</b>: the successful attempt of each run has an ended effect.
 * </ol>
 */
final class InvariantCheck {

    private static final Pattern ATTEMPT = Pattern.compile("^attempt (\\d+)");

    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private final Evidence evidence;

    private final Map<String, List<LoadDriver.Ack>> acks;

    private final Set<String> keys;

    private final Set<String> killed;

    private final Set<String> stopped;

    /**
     * @param keys every key the load triggered
     * @param killed instances (generations) the scenario killed with {@code kill -9}
     * @param stopped instances the scenario stopped with {@code SIGTERM}
     */
    InvariantCheck(
            Evidence evidence,
            Map<String, List<LoadDriver.Ack>> acks,
            Set<String> keys,
            Set<String> killed,
            Set<String> stopped) {
        this.evidence = evidence;
        this.acks = acks;
        this.keys = keys;
        this.killed = killed;
        this.stopped = stopped;
    }

    void check(FaultReport report, String scenario) {
        Map<UUID, RunRow> runs = evidence.runs().stream().collect(Collectors.toMap(RunRow::id, Function.identity()));
        report.runs = runs.size();
        report.keys = keys.size();
        checkKeysAndTriggers(report, scenario, runs);
        Map<UUID, List<EventRow>> events = evidence.eventsByRun();
        Map<UUID, List<EffectRow>> effects = evidence.effectsByRun();
        for (RunRow run : runs.values()) {
            History history = replay(report, run, events.getOrDefault(run.id(), List.of()));
            List<EffectRow> runEffects = effects.getOrDefault(run.id(), List.of());
            checkOverlaps(report, run, runEffects, history);
            explainReexecutions(report, run, runEffects, history);
        }
        for (UUID orphan : effects.keySet()) {
            if (!runs.containsKey(orphan)) {
                report.violation(orphan, "the effect log names a run that does not exist");
            }
        }
        report.maxStallMillis = maxStall(runs.values());
    }

    private void checkKeysAndTriggers(FaultReport report, String scenario, Map<UUID, RunRow> runs) {
        Map<String, List<RunRow>> byKey = runs.values().stream()
                .collect(Collectors.groupingBy(run -> run.key().substring(scenario.length() + 1)));
        for (String key : keys) {
            Set<UUID> ids = new HashSet<>();
            byKey.getOrDefault(key, List.of()).forEach(run -> ids.add(run.id()));
            List<LoadDriver.Ack> answered = acks.getOrDefault(key, List.of());
            for (LoadDriver.Ack ack : answered) {
                ids.add(ack.runId());
                if (!runs.containsKey(ack.runId())) {
                    report.lostTriggers++;
                    report.violation(
                            ack.runId(),
                            "key " + key + ": trigger answered by " + ack.instance() + " (" + ack.outcome()
                                    + ") but the run does not exist");
                }
            }
            if (ids.size() > 1) {
                report.duplicateRuns += ids.size() - 1;
                ids.forEach(id -> report.violation(id, "key " + key + " has " + ids.size() + " runs: " + ids));
            }
        }
        for (RunRow run : runs.values()) {
            if (!run.terminal()) {
                report.stuck++;
                report.violation(run.id(), "still " + run.status() + " after the drain");
            } else if (!run.status().equals("SUCCEEDED")) {
                report.failed++;
                report.violation(run.id(), "ended " + run.status() + " after " + run.attempts() + " attempts");
            }
        }
    }

    /** What replaying a run's events tells: which attempts lost their lease and when, and which one succeeded. */
    private record History(Map<Integer, Instant> expired, Map<Integer, String> endedBy, int succeededAttempt) {}

    private History replay(FaultReport report, RunRow run, List<EventRow> events) {
        Map<Integer, Instant> expired = new HashMap<>();
        Map<Integer, String> endedBy = new HashMap<>();
        String holder = null;
        int holderAttempt = 0;
        int succeeded = 0;
        boolean terminal = false;
        int violationsBefore = report.violations().size();
        String terminalType = null;
        int resumes = 0;
        for (EventRow event : events) {
            if (terminal && !event.type().equals("RESUMED")) {
                report.violation(run.id(), "event " + event.seq() + " " + event.type() + " after the terminal event");
            }
            switch (event.type()) {
                case "RESUMED" -> {
                    // S-RV-1: an operator resumed a FAILED or CANCELLED run in place; its next attempt is claimed.
                    resumes++;
                    if (!terminal || !(terminalType.equals("FAILED") || terminalType.equals("CANCELLED"))) {
                        report.violation(
                                run.id(),
                                "resumed (event " + event.seq() + ") while " + (terminal ? terminalType : "active"));
                    }
                    if (resumes > 1) {
                        report.violation(run.id(), "resumed " + resumes + " times (event " + event.seq() + ")");
                    }
                    terminal = false;
                }
                case "CLAIMED" -> {
                    if (holder != null) {
                        report.violation(
                                run.id(),
                                "attempt " + attempt(event, -1) + " claimed by " + event.actor() + " while attempt "
                                        + holderAttempt + " was still held by " + holder);
                    }
                    holder = event.actor();
                    holderAttempt = attempt(event, holderAttempt + 1);
                }
                case "LEASE_EXPIRED" -> {
                    int attempt = attempt(event, holderAttempt);
                    if (holder == null || attempt != holderAttempt) {
                        report.violation(run.id(), "lease of attempt " + attempt + " expired while not held");
                    }
                    expired.put(attempt, event.at());
                    endedBy.put(attempt, event.type());
                    holder = null;
                }
                case "DEBOUNCED" -> {
                    // S-DB-3: a trigger folded into the pending run; a fold after the run's first claim changed it.
                    if (holderAttempt > 0) {
                        report.violation(
                                run.id(),
                                "folded a trigger (event " + event.seq() + ") after its first claim (S-DB-3)");
                    }
                }
                case "CANCELLATION_REQUESTED", "IDEMPOTENCY_KEY_RESET" -> {
                    // Not an attempt's outcome; the suite requests neither.
                }
                case "STEP_COMPLETED" -> {
                    // Not an outcome: recorded by the attempt holding the claim, which keeps it (S-ST-3).
                    if (holder == null || !holder.equals(event.actor())) {
                        report.violation(
                                run.id(),
                                "step " + event.detail() + " (event " + event.seq() + ") recorded by " + event.actor()
                                        + " while the claim of attempt " + holderAttempt + " was held by " + holder
                                        + ": a step of an attempt that lost its claim was recorded (S-ST-3)");
                    }
                }
                default -> {
                    if (holder == null || !holder.equals(event.actor())) {
                        report.violation(
                                run.id(),
                                event.type() + " (event " + event.seq() + ") written by "
                                        + event.actor() + " while the claim of attempt " + holderAttempt
                                        + " was held by "
                                        + holder
                                        + ": an outcome from an attempt that lost its claim was accepted (S-EX-3)");
                    }
                    endedBy.put(holderAttempt, event.type());
                    if (event.type().equals("SUCCEEDED")) {
                        succeeded = holderAttempt;
                    }
                    terminal = TERMINAL.contains(event.type());
                    terminalType = event.type();
                    holder = null;
                }
            }
        }
        if (run.terminal() && !terminal) {
            report.violation(run.id(), "is " + run.status() + " but its history has no terminal event");
        }
        report.eventViolations += report.violations().size() - violationsBefore;
        return new History(expired, endedBy, succeeded);
    }

    /**
     * Effects are compared in the order of their attempts, which claims number in sequence, not of their recorded
     * starts: an effect's start is written by its handler to the scenario's database, so an outage of that database
     * can record the start of an attempt that lost its lease meanwhile (a zombie) after the next attempt's; compared
     * in start order, that zombie looked like an attempt started under the next one's lease.
     */
    private void checkOverlaps(FaultReport report, RunRow run, List<EffectRow> effects, History history) {
        List<EffectRow> sorted = effects.stream()
                .sorted(Comparator.comparingInt(EffectRow::attempt).thenComparing(EffectRow::startedAt))
                .toList();
        for (int i = 0; i < sorted.size(); i++) {
            EffectRow earlier = sorted.get(i);
            for (int j = i + 1; j < sorted.size(); j++) {
                EffectRow later = sorted.get(j);
                if (later.attempt() == earlier.attempt()) {
                    report.overlappingExecutions++;
                    report.violation(
                            run.id(),
                            "attempt " + later.attempt() + " executed twice, on " + earlier.instance() + " and on "
                                    + later.instance());
                    continue;
                }
                if (!later.startedAt().isBefore(earlier.latestEnd())) {
                    continue;
                }
                Instant expiredAt = history.expired().get(earlier.attempt());
                if (expiredAt == null || expiredAt.isAfter(later.startedAt())) {
                    report.overlappingExecutions++;
                    report.violation(
                            run.id(),
                            "attempt " + later.attempt() + " on " + later.instance()
                                    + " started at " + later.startedAt() + " while attempt " + earlier.attempt()
                                    + " on "
                                    + earlier.instance() + " (until " + earlier.latestEnd() + ") still held its lease"
                                    + (expiredAt == null ? "" : " (expired at " + expiredAt + ")"));
                }
            }
        }
    }

    private void explainReexecutions(FaultReport report, RunRow run, List<EffectRow> effects, History history) {
        int succeeded = history.succeededAttempt();
        if (run.status().equals("SUCCEEDED")
                && effects.stream().noneMatch(e -> e.attempt() == succeeded && e.endedAt() != null)) {
            report.missingEffects++;
            report.violation(run.id(), "succeeded with attempt " + succeeded + " but no effect of it ended");
        }
        List<EffectRow> before = effects.stream()
                .filter(e -> e.attempt() != succeeded)
                .sorted(Comparator.comparing(EffectRow::attempt))
                .toList();
        if (before.isEmpty()) {
            return;
        }
        report.reexecuted++;
        StringBuilder story = new StringBuilder();
        boolean explained = true;
        String reason = null;
        for (EffectRow effect : before) {
            Instant expiredAt = history.expired().get(effect.attempt());
            String why = why(effect, expiredAt);
            if (effect.attempt() > succeeded && succeeded > 0) {
                why = null;
            }
            if (why == null) {
                explained = false;
                String ended = history.endedBy().getOrDefault(effect.attempt(), "no outcome");
                report.violation(
                        run.id(),
                        "attempt " + effect.attempt() + " on " + effect.instance()
                                + " is not explained by a fault: its outcome was " + ended + ", effect ended "
                                + effect.endedAt());
            } else {
                reason = reason == null ? why : reason;
                if (effect.endedAt() != null) {
                    report.zombiesRefused++;
                }
            }
            story.append("attempt ")
                    .append(effect.attempt())
                    .append(" on ")
                    .append(effect.instance())
                    .append(' ')
                    .append(why == null ? "UNEXPLAINED" : why)
                    .append(expiredAt == null ? "" : ", lease expired at " + expiredAt)
                    .append("; ");
        }
        story.append("attempt ").append(succeeded).append(" succeeded");
        if (explained) {
            report.explain(run.id(), reason, story.toString());
        } else {
            report.unexplained++;
        }
    }

    /** Why an attempt's effect was not the last one, or {@code null} if no fault explains it. */
    private @Nullable String why(EffectRow effect, @Nullable Instant expiredAt) {
        if (expiredAt == null) {
            return null;
        }
        if (effect.endedAt() != null) {
            return "finished its handler but its outcome was not recorded before its lease expired (zombie)";
        }
        if (killed.contains(effect.instance())) {
            return "was cut by kill -9 of its process";
        }
        if (stopped.contains(effect.instance())) {
            return "was cut when its process stopped (SIGTERM) after the shutdown timeout";
        }
        return null;
    }

    /** The longest time during the scenario in which no run finished, from the first creation to the last finish. */
    private static long maxStall(Collection<RunRow> runs) {
        Instant previous = runs.stream()
                .map(RunRow::createdAt)
                .min(Comparator.naturalOrder())
                .orElse(null);
        long stall = 0;
        List<Instant> finishes = runs.stream()
                .map(RunRow::finishedAt)
                .filter(Objects::nonNull)
                .sorted()
                .toList();
        for (Instant finish : finishes) {
            stall = Math.max(stall, Duration.between(previous, finish).toMillis());
            previous = finish;
        }
        return stall;
    }

    private static int attempt(EventRow event, int otherwise) {
        Matcher matcher = ATTEMPT.matcher(event.detail());
        return matcher.find() ? Integer.parseInt(matcher.group(1)) : otherwise;
    }
}

package io.runlane.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The outcome of one scenario: the counts of the {@code FAULTS} line, every broken invariant with the runs it names,
 * and the explanation of every re-execution.
 */
final class FaultReport {

    private final String scenario;

    private final long seed;

    int runs;

    int keys;

    int duplicateRuns;

    int lostTriggers;

    int overlappingExecutions;

    int stuck;

    int reexecuted;

    long maxStallMillis;

    int failed;

    int eventViolations;

    int unexplained;

    int missingEffects;

    int zombiesRefused;

    int unanswered;

    int unfoundedLeaseLossWarnings;

    private final List<String> violations = new ArrayList<>();

    private final Set<UUID> offendingRuns = new LinkedHashSet<>();

    private final List<String> explanations = new ArrayList<>();

    private final Map<String, Integer> reasons = new LinkedHashMap<>();

    private final List<String> notes = new ArrayList<>();

    private final Map<String, Long> figures = new LinkedHashMap<>();

    private final Map<String, Long> invariants = new LinkedHashMap<>();

    FaultReport(String scenario, long seed) {
        this.scenario = scenario;
        this.seed = seed;
    }

    String scenario() {
        return scenario;
    }

    void violation(UUID runId, String text) {
        offendingRuns.add(runId);
        violations.add("run " + runId + ": " + text);
    }

    void violation(String text) {
        violations.add(text);
    }

    void explain(UUID runId, String reason, String text) {
        reasons.merge(reason, 1, Integer::sum);
        explanations.add("run " + runId + ": " + text);
    }

    /** A fact about the scenario worth printing, such as what a fault injector did. */
    void note(String text) {
        notes.add(text);
    }

    /** A measurement a scenario adds to its line after the counts, such as a recovery time; reported, not asserted. */
    void figure(String name, long value) {
        figures.put(name, value);
    }

    /**
     * The count of a scenario's own invariant, such as a throttle's broken windows: printed after the common counts
     * (0 expected); each breach is also a {@link #violation}.
     */
    void invariant(String name, long count) {
        invariants.put(name, count);
    }

    boolean passed() {
        return violations.isEmpty();
    }

    List<String> violations() {
        return violations;
    }

    Set<UUID> offendingRuns() {
        return offendingRuns;
    }

    List<String> explanations() {
        return explanations;
    }

    List<String> notes() {
        return notes;
    }

    /** The one line the suite prints per scenario; the first fields are the issue's, the rest add detail. */
    String line() {
        return "FAULTS scenario=" + scenario + " runs=" + runs + " keys=" + keys + " duplicate_runs=" + duplicateRuns
                + " lost_triggers=" + lostTriggers + " overlapping_executions=" + overlappingExecutions + " stuck="
                + stuck + " reexecuted=" + reexecuted + " max_stall_ms=" + maxStallMillis + " failed=" + failed
                + " event_violations=" + eventViolations + " unexplained_reexecutions=" + unexplained
                + " missing_effects=" + missingEffects + " zombie_completions_refused=" + zombiesRefused
                + " unanswered_triggers=" + unanswered + " unfounded_lease_loss_warnings=" + unfoundedLeaseLossWarnings
                + fields(invariants) + fields(figures) + " seed=" + seed;
    }

    private static String fields(Map<String, Long> fields) {
        StringBuilder line = new StringBuilder();
        fields.forEach(
                (name, value) -> line.append(' ').append(name).append('=').append(value));
        return line.toString();
    }

    String reasonSummary() {
        return reasons.isEmpty() ? "none" : reasons.toString();
    }
}

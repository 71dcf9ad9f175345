package io.runlane.faults;

import io.runlane.faults.Evidence.EffectRow;
import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Checks the promises of the transactional-step workload ({@link Workload#TRANSACTIONAL_STEPS}) and fills a {@link
 * FaultReport}, next to the general {@link InvariantCheck}:
 *
 * <ol>
 *   <li><b>Exactly once</b> (S-ST-8): every run has exactly one row in the application table and one recorded step,
 *       however many of its attempts were killed inside or after the step.
 *   <li><b>Exercised</b>: at least one step wrote its row and was then cut by a kill before its commit (its mark in
 *       the effect log has no committed row), so the rollback of a killed step was really tested.
 *   <li><b>Leases kept</b> (S-ST-15, S-EX-16): only attempts of killed processes lost their lease; a step longer
 *       than the lease on a live instance kept it through heartbeats.
 * </ol>
 */
final class TransactionalStepCheck {

    private static final Pattern ATTEMPT = Pattern.compile("^attempt (\\d+)");

    /** A row of the application table: which attempt's step wrote it, on which instance. */
    record StepRow(UUID runId, int attempt, String instance) {}

    /** An attempt whose step marked in the effect log that it wrote its row, committed or not. */
    record WrittenStep(UUID runId, int attempt, String instance) {}

    /** What the database holds about the workload's steps: rows, recorded steps per run, written marks. */
    record StepEvidence(List<StepRow> rows, Map<UUID, Integer> recorded, List<WrittenStep> written) {

        private static final String ROWS = """
                SELECT run_id, attempt, instance FROM %s.step_rows WHERE run_id = ANY(?)
                """;

        private static final String RECORDED = """
                SELECT run_id, count(*) FROM %s.run_steps WHERE name = ? AND run_id = ANY(?) GROUP BY run_id
                """;

        private static final String WRITTEN = """
                SELECT run_id, attempt, instance FROM %s.effects WHERE scenario = ? AND step_written_at IS NOT NULL
                """;

        static StepEvidence load(FaultCluster cluster, String scenario, Evidence evidence) throws SQLException {
            try (Connection connection = cluster.connect()) {
                Object[] runIds = evidence.runs().stream().map(RunRow::id).toArray();
                List<StepRow> rows = new ArrayList<>();
                try (PreparedStatement statement =
                        connection.prepareStatement(ROWS.formatted(cluster.effectSchema()))) {
                    statement.setArray(1, connection.createArrayOf("uuid", runIds));
                    try (ResultSet rs = statement.executeQuery()) {
                        while (rs.next()) {
                            rows.add(new StepRow(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3)));
                        }
                    }
                }
                Map<UUID, Integer> recorded = new HashMap<>();
                try (PreparedStatement statement = connection.prepareStatement(RECORDED.formatted(cluster.schema()))) {
                    statement.setString(1, EffectTask.STEP);
                    statement.setArray(2, connection.createArrayOf("uuid", runIds));
                    try (ResultSet rs = statement.executeQuery()) {
                        while (rs.next()) {
                            recorded.put(rs.getObject(1, UUID.class), rs.getInt(2));
                        }
                    }
                }
                List<WrittenStep> written = new ArrayList<>();
                try (PreparedStatement statement =
                        connection.prepareStatement(WRITTEN.formatted(cluster.effectSchema()))) {
                    statement.setString(1, scenario);
                    try (ResultSet rs = statement.executeQuery()) {
                        while (rs.next()) {
                            written.add(new WrittenStep(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3)));
                        }
                    }
                }
                return new StepEvidence(rows, recorded, written);
            }
        }
    }

    private final Evidence evidence;

    private final StepEvidence steps;

    private final Set<String> killed;

    /** @param killed instances (generations) the scenario killed with {@code kill -9} */
    TransactionalStepCheck(Evidence evidence, StepEvidence steps, Set<String> killed) {
        this.evidence = evidence;
        this.steps = steps;
        this.killed = killed;
    }

    void check(FaultReport report) {
        Map<UUID, List<StepRow>> rowsByRun = steps.rows().stream().collect(Collectors.groupingBy(StepRow::runId));
        Map<UUID, List<EffectRow>> effects = evidence.effectsByRun();
        int committedThenCut = 0;
        for (RunRow run : evidence.runs()) {
            List<StepRow> rows = rowsByRun.getOrDefault(run.id(), List.of());
            if (rows.size() != 1) {
                report.violation(
                        run.id(),
                        "has " + rows.size() + " rows of its transactional step, exactly one must have committed"
                                + " (S-ST-8); rows: " + rows);
            }
            int recorded = steps.recorded().getOrDefault(run.id(), 0);
            if (recorded != 1) {
                report.violation(run.id(), "has " + recorded + " recorded steps '" + EffectTask.STEP + "'");
            }
            int lastAttempt = effects.getOrDefault(run.id(), List.of()).stream()
                    .mapToInt(EffectRow::attempt)
                    .max()
                    .orElse(0);
            if (rows.size() == 1 && rows.get(0).attempt() < lastAttempt) {
                committedThenCut++;
            }
        }
        Set<String> committed = new HashSet<>();
        steps.rows().forEach(row -> committed.add(row.runId() + "#" + row.attempt()));
        List<WrittenStep> rolledBack = steps.written().stream()
                .filter(step -> !committed.contains(step.runId() + "#" + step.attempt()))
                .toList();
        long cutByKill = rolledBack.stream()
                .filter(step -> killed.contains(step.instance()))
                .count();
        report.note(rolledBack.size() + " transactional steps wrote their row and rolled back (" + cutByKill
                + " of them cut by kill -9 before their commit); " + committedThenCut
                + " runs committed their step in an attempt that was cut afterwards, and a later attempt returned the"
                + " recorded step");
        if (cutByKill == 0) {
            report.violation("no kill -9 cut a transactional step after it wrote its row, so the rollback of a killed"
                    + " step was not exercised");
        }
        checkLeasesKept(report, effects);
    }

    /** S-ST-15: a lease may expire only for an attempt whose process was killed. */
    private void checkLeasesKept(FaultReport report, Map<UUID, List<EffectRow>> effects) {
        Map<UUID, List<EventRow>> events = evidence.eventsByRun();
        events.forEach((runId, runEvents) -> {
            for (EventRow event : runEvents) {
                if (!event.type().equals("LEASE_EXPIRED")) {
                    continue;
                }
                Matcher matcher = ATTEMPT.matcher(event.detail());
                if (!matcher.find()) {
                    continue;
                }
                int attempt = Integer.parseInt(matcher.group(1));
                effects.getOrDefault(runId, List.of()).stream()
                        .filter(effect -> effect.attempt() == attempt && !killed.contains(effect.instance()))
                        .findFirst()
                        .ifPresent(effect -> report.violation(
                                runId,
                                "attempt " + attempt + " on " + effect.instance() + ", which was not killed, lost its"
                                        + " lease: a transactional step keeps its lease through heartbeats (S-ST-15)"));
            }
        });
    }
}

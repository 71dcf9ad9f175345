package io.runlane.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** What the database holds about one scenario after its drain: its runs, their events, and the effect log. */
record Evidence(List<RunRow> runs, List<EventRow> events, List<EffectRow> effects) {

    /**
     * Which runs are a scenario's: those of {@code taskId} whose {@code keyColumn} starts with the scenario's name and
     * a dot; {@link RunRow#key()} is that column.
     */
    record Selection(String taskId, String keyColumn) {

        /** The effect task's runs, by idempotency key: every workload but the debounced one. */
        static final Selection IDEMPOTENT = new Selection(EffectTask.ID, "idempotency_key");

        /** The debounced task's runs, by debounce key: a key has one run per debounce window. */
        static final Selection DEBOUNCED = new Selection(DebounceTask.ID, "debounce_key");

        /** The throttled task's runs, by throttle key: a key has many runs, each with its own idempotency key. */
        static final Selection THROTTLED = new Selection(ThrottleTask.ID, "throttle_key");
    }

    record RunRow(
            UUID id,
            String key,
            String status,
            int attempts,
            Instant createdAt,
            @Nullable Instant finishedAt) {

        boolean terminal() {
            return finishedAt != null;
        }
    }

    record EventRow(UUID runId, int seq, String type, String status, Instant at, String actor, String detail) {}

    record EffectRow(
            UUID id,
            UUID runId,
            int attempt,
            String instance,
            long plannedMillis,
            Instant startedAt,
            @Nullable Instant endedAt) {

        /** When the effect ended at the latest: its recorded end, or its start plus its planned work if cut. */
        Instant latestEnd() {
            return endedAt != null ? endedAt : startedAt.plusMillis(plannedMillis);
        }
    }

    private static final String RUNS = """
            SELECT id, %2$s, status, attempts, created_at, finished_at FROM %1$s.runs
            WHERE environment = ? AND task_id = ? AND starts_with(%2$s, ?)
            """;

    private static final String EVENTS = """
            SELECT e.run_id, e.seq, e.type, e.status, e.created_at, e.actor, e.detail
            FROM %1$s.run_events e JOIN %1$s.runs r ON r.id = e.run_id
            WHERE r.environment = ? AND r.task_id = ? AND starts_with(r.%2$s, ?)
            ORDER BY e.run_id, e.seq
            """;

    private static final String EFFECTS = """
            SELECT id, run_id, attempt, instance, planned_ms, started_at, ended_at FROM %s.effects
            WHERE scenario = ? ORDER BY run_id, started_at
            """;

    private static final String UNFINISHED = """
            SELECT count(*) FROM %1$s.runs
            WHERE environment = ? AND task_id = ? AND starts_with(%2$s, ?) AND finished_at IS NULL
            """;

    static Evidence load(FaultCluster cluster, String scenario) throws SQLException {
        return load(cluster, scenario, Selection.IDEMPOTENT);
    }

    /** The evidence of the scenario's runs that {@code selection} selects. */
    static Evidence load(FaultCluster cluster, String scenario, Selection selection) throws SQLException {
        try (Connection connection = cluster.connect();
                Connection effectLog = cluster.connectEffects()) {
            String schema = cluster.schema();
            List<RunRow> runs = query(
                    connection,
                    RUNS.formatted(schema, selection.keyColumn()),
                    selection,
                    scenario,
                    rs -> new RunRow(
                            rs.getObject(1, UUID.class),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getInt(4),
                            instant(rs, 5),
                            instant(rs, 6)));
            List<EventRow> events = query(
                    connection,
                    EVENTS.formatted(schema, selection.keyColumn()),
                    selection,
                    scenario,
                    rs -> new EventRow(
                            rs.getObject(1, UUID.class),
                            rs.getInt(2),
                            rs.getString(3),
                            rs.getString(4),
                            instant(rs, 5),
                            String.valueOf(rs.getString(6)),
                            String.valueOf(rs.getString(7))));
            List<EffectRow> effects;
            try (PreparedStatement statement = effectLog.prepareStatement(EFFECTS.formatted(cluster.effectSchema()))) {
                statement.setString(1, scenario);
                effects = rows(
                        statement,
                        rs -> new EffectRow(
                                rs.getObject(1, UUID.class),
                                rs.getObject(2, UUID.class),
                                rs.getInt(3),
                                rs.getString(4),
                                rs.getLong(5),
                                instant(rs, 6),
                                instant(rs, 7)));
            }
            return new Evidence(runs, events, effects);
        }
    }

    /** How many runs of the scenario are not terminal yet. */
    static long unfinished(FaultCluster cluster, String scenario) throws SQLException {
        return unfinished(cluster, scenario, Selection.IDEMPOTENT);
    }

    /** How many of the scenario's runs that {@code selection} selects are not terminal yet. */
    static long unfinished(FaultCluster cluster, String scenario, Selection selection) throws SQLException {
        try (Connection connection = cluster.connect()) {
            return query(
                            connection,
                            UNFINISHED.formatted(cluster.schema(), selection.keyColumn()),
                            selection,
                            scenario,
                            rs -> rs.getLong(1))
                    .get(0);
        }
    }

    Map<UUID, List<EventRow>> eventsByRun() {
        return events.stream().collect(Collectors.groupingBy(EventRow::runId));
    }

    Map<UUID, List<EffectRow>> effectsByRun() {
        return effects.stream().collect(Collectors.groupingBy(EffectRow::runId));
    }

    /** Writes the effect log and the events of {@code runIds} (all runs when empty) as CSV files into {@code dir}. */
    void dump(Path dir, Collection<UUID> runIds) throws IOException {
        Set<UUID> selected = Set.copyOf(runIds);
        Files.createDirectories(dir);
        List<String> effectLines = new ArrayList<>(List.of("run_id,attempt,instance,planned_ms,started_at,ended_at"));
        effects.stream()
                .filter(e -> selected.isEmpty() || selected.contains(e.runId()))
                .forEach(e -> effectLines.add(e.runId() + "," + e.attempt() + "," + e.instance() + ","
                        + e.plannedMillis() + "," + e.startedAt() + "," + e.endedAt()));
        Files.write(dir.resolve("effects.csv"), effectLines);
        List<String> eventLines = new ArrayList<>(List.of("run_id,seq,type,status,created_at,actor,detail"));
        events.stream()
                .filter(e -> selected.isEmpty() || selected.contains(e.runId()))
                .forEach(e -> eventLines.add(e.runId() + "," + e.seq() + "," + e.type() + "," + e.status() + ","
                        + e.at() + "," + e.actor() + ",\"" + e.detail().replace("\"", "'") + "\""));
        Files.write(dir.resolve("events.csv"), eventLines);
    }

    private static <T> List<T> query(
            Connection connection, String sql, Selection selection, String scenario, Row<T> row) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, FaultCluster.ENVIRONMENT);
            statement.setString(2, selection.taskId());
            statement.setString(3, scenario + ".");
            return rows(statement, row);
        }
    }

    private static <T> List<T> rows(PreparedStatement statement, Row<T> row) throws SQLException {
        List<T> rows = new ArrayList<>();
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                rows.add(row.map(rs));
            }
        }
        return rows;
    }

    private static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime timestamp = rs.getObject(column, OffsetDateTime.class);
        return timestamp == null ? null : timestamp.toInstant();
    }

    @FunctionalInterface
    private interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }
}

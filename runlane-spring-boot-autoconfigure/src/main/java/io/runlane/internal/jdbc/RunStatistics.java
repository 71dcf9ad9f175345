package io.runlane.internal.jdbc;

import io.runlane.RunStatus;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Counts active runs per queue and status, and the age of the oldest due run, for the actuator endpoint, health
 * and gauges (S-MO-1..3). Only active runs are counted: they are served by the small partial indexes of waiting
 * and running runs, so the query stays cheap however many finished runs are retained.
 */
public final class RunStatistics {

    /** One queue's active runs. */
    public record QueueStatistics(
            String queue,
            Map<RunStatus, Long> activeCounts,
            long due,
            @Nullable Duration oldestDueAge) {

        /** Runs waiting for a worker, due or not. */
        public long waiting() {
            return activeCounts.entrySet().stream()
                    .filter(entry ->
                            entry.getKey() != RunStatus.RUNNING && entry.getKey() != RunStatus.CANCELLATION_REQUESTED)
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }
    }

    private static final String BY_QUEUE = """
            SELECT queue, status, count(*) AS runs,
                   count(*) FILTER (WHERE run_at <= statement_timestamp()) AS due,
                   extract(epoch FROM statement_timestamp() - min(run_at)
                           FILTER (WHERE run_at <= statement_timestamp())) * 1000 AS oldest_due_ms
            FROM {schema}.runs
            WHERE environment = :environment AND status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED')
            GROUP BY queue, status
            UNION ALL
            SELECT queue, status, count(*), 0, NULL
            FROM {schema}.runs
            WHERE environment = :environment AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
            GROUP BY queue, status
            """;

    /** One interval of {@link #finishedSince}: runs that became terminal in it, per terminal status. */
    public record FinishedInterval(Instant start, Map<RunStatus, Long> counts) {}

    /**
     * S-CO-1: terminal runs per status and interval since a moment before now, for the console's throughput chart.
     * The range on {@code finished_at} per terminal status is served by {@code runs_finished_idx}; {@code date_bin}
     * aligns the intervals on {@code :origin} so that consecutive reads agree on their boundaries.
     */
    private static final String FINISHED_SINCE = """
            SELECT date_bin(make_interval(secs => :interval_seconds), finished_at, :origin) AS interval_start,
                   status, count(*) AS runs
            FROM {schema}.runs
            WHERE environment = :environment
              AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
              AND finished_at >= statement_timestamp() - make_interval(secs => :window_seconds)
            GROUP BY interval_start, status
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String byQueue;

    private final String finishedSince;

    public RunStatistics(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.byQueue = sql.format(BY_QUEUE);
        this.finishedSince = sql.format(FINISHED_SINCE);
    }

    /** Statistics of every queue that has active runs, plus the given queues (with zeros), by queue name. */
    public Map<String, QueueStatistics> byQueue(List<String> declaredQueues) {
        Map<String, Map<RunStatus, Long>> counts = new TreeMap<>();
        Map<String, Long> due = new TreeMap<>();
        Map<String, Double> oldest = new TreeMap<>();
        declaredQueues.forEach(queue -> counts.put(queue, new EnumMap<>(RunStatus.class)));
        jdbc.sql(byQueue)
                .paramSource(new MapSqlParameterSource().addValue("environment", environment, Types.VARCHAR))
                .query(rs -> {
                    String queue = rs.getString("queue");
                    counts.computeIfAbsent(queue, q -> new EnumMap<>(RunStatus.class))
                            .put(RunStatus.valueOf(rs.getString("status")), rs.getLong("runs"));
                    due.merge(queue, rs.getLong("due"), Long::sum);
                    double oldestMillis = rs.getDouble("oldest_due_ms");
                    if (!rs.wasNull()) {
                        oldest.merge(queue, oldestMillis, Math::max);
                    }
                });
        Map<String, QueueStatistics> result = new TreeMap<>();
        counts.forEach((queue, byStatus) -> result.put(
                queue,
                new QueueStatistics(
                        queue,
                        Map.copyOf(byStatus),
                        due.getOrDefault(queue, 0L),
                        oldest.containsKey(queue) ? Duration.ofMillis(Math.round(oldest.get(queue))) : null)));
        return result;
    }

    /**
     * Runs that finished within {@code window} before now, per {@code interval}-long interval aligned on the epoch,
     * oldest first; intervals without a finished run are left out.
     */
    public List<FinishedInterval> finishedSince(Duration window, Duration interval) {
        Map<Instant, Map<RunStatus, Long>> counts = new TreeMap<>();
        jdbc.sql(finishedSince)
                .paramSource(new MapSqlParameterSource()
                        .addValue("environment", environment, Types.VARCHAR)
                        .addValue("interval_seconds", (double) interval.toSeconds(), Types.DOUBLE)
                        .addValue("window_seconds", (double) window.toSeconds(), Types.DOUBLE)
                        .addValue("origin", OffsetDateTime.ofInstant(Instant.EPOCH, ZoneOffset.UTC)))
                .query(rs -> {
                    Instant start =
                            rs.getObject("interval_start", OffsetDateTime.class).toInstant();
                    counts.computeIfAbsent(start, key -> new EnumMap<>(RunStatus.class))
                            .put(RunStatus.valueOf(rs.getString("status")), rs.getLong("runs"));
                });
        return counts.entrySet().stream()
                .map(entry -> new FinishedInterval(entry.getKey(), Map.copyOf(entry.getValue())))
                .toList();
    }
}

package io.runlane.internal.query;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import java.sql.Types;
import java.time.Duration;
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
 * runs (with and without a throttle) and of leased running runs, so the query stays cheap however many finished
 * runs are retained.
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

    /**
     * The active runs per queue and status, each branch of the union matching the predicate of one partial index:
     * waiting runs without a throttle ({@code runs_waiting_due_idx}) and with one ({@code
     * runs_throttled_waiting_due_idx}, both since changeset 019), leased running runs ({@code runs_running_idx}). A
     * branch over all waiting runs implies neither waiting index's predicate and is read by a sequential scan of the
     * runs table. The running branch has no due time, so its runs are never due and have no oldest due age.
     */
    private static final String BY_QUEUE = """
            SELECT queue, status, count(*) AS runs,
                   count(*) FILTER (WHERE run_at <= statement_timestamp()) AS due,
                   extract(epoch FROM statement_timestamp() - min(run_at)
                           FILTER (WHERE run_at <= statement_timestamp())) * 1000 AS oldest_due_ms
            FROM (SELECT queue, status, run_at
                  FROM {schema}.runs
                  WHERE environment = :environment
                    AND status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING') AND throttle_key IS NULL
                  UNION ALL
                  SELECT queue, status, run_at
                  FROM {schema}.runs
                  WHERE environment = :environment
                    AND status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING')
                    AND throttle_key IS NOT NULL
                  UNION ALL
                  SELECT queue, status, NULL::timestamptz
                  FROM {schema}.runs
                  WHERE environment = :environment AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
                    AND lease_expires_at IS NOT NULL) active
            GROUP BY queue, status
            """;

    private final JdbcClient jdbc;

    private final String environment;

    final String byQueue;

    public RunStatistics(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.byQueue = sql.format(BY_QUEUE);
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
}

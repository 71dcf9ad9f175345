package io.runlane.internal.query;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * Per-task and per-interval figures of finished runs for the console's tasks page and charts (S-CO-20, S-CO-21). A
 * run's duration is {@code finished_at - created_at}: from its trigger to its end, queueing, retries and waits
 * included. Every query over finished runs reads only the range of {@code finished_at} it reports on, from the
 * covering partial indexes of changeset 021 ({@code runs_finished_at_idx} for all tasks or one queue, {@code
 * runs_task_finished_idx} for one task), so its cost follows the runs finished in the range, not the runs retained.
 * Active runs are counted from the partial indexes of waiting runs (with and without a throttle) and of leased
 * running runs.
 */
public final class TaskStatistics {

    /** Finished runs of one task in the range, per terminal status, and their duration percentiles. */
    public record TaskFigures(
            String taskId,
            Map<RunStatus, Long> finished,
            @Nullable Double p50Millis,
            @Nullable Double p95Millis) {}

    /**
     * One interval of a series: the runs that finished in it, how many of them failed, and their duration
     * percentiles ({@code null} when none finished).
     */
    public record Bucket(
            Instant start,
            long finished,
            long failed,
            @Nullable Double p50Millis,
            @Nullable Double p95Millis) {}

    /** Which finished runs a series counts. */
    public enum Scope {
        ALL,
        QUEUE,
        TASK
    }

    private static final String DURATION_MS = "extract(epoch FROM finished_at - created_at) * 1000";

    private static final String FINISHED_BY_TASK = """
            SELECT task_id,
                   count(*) FILTER (WHERE status = 'SUCCEEDED') AS succeeded,
                   count(*) FILTER (WHERE status = 'FAILED') AS failed,
                   count(*) FILTER (WHERE status = 'CANCELLED') AS cancelled,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY {duration}) AS p50_ms,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY {duration}) AS p95_ms
            FROM {schema}.runs
            WHERE environment = :environment AND finished_at IS NOT NULL
              AND finished_at >= statement_timestamp() - make_interval(secs => :range_seconds)
            GROUP BY task_id
            """;

    /**
     * The active runs per task and status, each branch matching the predicate of one partial index: waiting runs
     * without a throttle ({@code runs_waiting_due_idx}) and with one ({@code runs_throttled_waiting_due_idx}, both
     * since changeset 019), leased running runs ({@code runs_running_idx}). A branch over all waiting runs implies
     * neither waiting index's predicate and is read by a sequential scan of the runs table.
     */
    private static final String ACTIVE_BY_TASK = """
            SELECT task_id, status, count(*) AS runs
            FROM (SELECT task_id, status
                  FROM {schema}.runs
                  WHERE environment = :environment
                    AND status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING') AND throttle_key IS NULL
                  UNION ALL
                  SELECT task_id, status
                  FROM {schema}.runs
                  WHERE environment = :environment
                    AND status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING')
                    AND throttle_key IS NOT NULL
                  UNION ALL
                  SELECT task_id, status
                  FROM {schema}.runs
                  WHERE environment = :environment AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
                    AND lease_expires_at IS NOT NULL) active
            GROUP BY task_id, status
            """;

    /**
     * The series: one row per interval from the one holding {@code now - range} to the one holding now, aligned on
     * the epoch ({@link #BUCKET_START}) so that consecutive reads agree on the boundaries; intervals without finished
     * runs come out with zeros from the {@code generate_series} they are joined to.
     */
    private static final String SERIES = """
            WITH finished AS (
                SELECT {bucket_of_finished} AS bucket_start, status, {duration} AS duration_ms
                FROM {schema}.runs
                WHERE environment = :environment AND finished_at IS NOT NULL {filter}
                  AND finished_at >= {first_bucket}
            )
            SELECT b.bucket_start,
                   count(f.status) AS finished,
                   count(*) FILTER (WHERE f.status = 'FAILED') AS failed,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY f.duration_ms) AS p50_ms,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY f.duration_ms) AS p95_ms
            FROM generate_series({first_bucket}, statement_timestamp(), make_interval(secs => :bucket_seconds))
                     AS b(bucket_start)
            LEFT JOIN finished f ON f.bucket_start = b.bucket_start
            GROUP BY b.bucket_start
            ORDER BY b.bucket_start
            """;

    /**
     * The start of the {@code :bucket_seconds}-long interval holding {@code {at}}, intervals being laid end to end from
     * {@code :origin}: the boundaries {@code date_bin} gives, in arithmetic PostgreSQL 13 has ({@code date_bin} came
     * with 14). A stable expression of the statement's time and parameters, so a lower bound made of it is an index
     * range condition.
     */
    static final String BUCKET_START = "(:origin + floor(extract(epoch FROM {at} - :origin) / :bucket_seconds)"
            + " * make_interval(secs => :bucket_seconds))";

    private final JdbcClient jdbc;

    private final String environment;

    // The statements, formatted for the schema; package-private for TaskStatisticsPlanIntegrationTests.
    final String finishedByTask;

    final String activeByTask;

    final Map<Scope, String> series = new EnumMap<>(Scope.class);

    public TaskStatistics(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.finishedByTask = sql.format(FINISHED_BY_TASK.replace("{duration}", DURATION_MS));
        this.activeByTask = sql.format(ACTIVE_BY_TASK);
        String seriesSql = SERIES.replace("{duration}", DURATION_MS)
                .replace("{bucket_of_finished}", BUCKET_START.replace("{at}", "finished_at"))
                .replace(
                        "{first_bucket}",
                        BUCKET_START.replace(
                                "{at}", "(statement_timestamp() - make_interval(secs => :range_seconds))"));
        series.put(Scope.ALL, sql.format(seriesSql.replace("{filter}", "")));
        series.put(Scope.QUEUE, sql.format(seriesSql.replace("{filter}", "AND queue = :scope_value")));
        series.put(Scope.TASK, sql.format(seriesSql.replace("{filter}", "AND task_id = :scope_value")));
    }

    /** The runs of each task that finished within {@code range} before now, by task id; tasks without any are absent. */
    public Map<String, TaskFigures> finishedByTask(Duration range) {
        Map<String, TaskFigures> result = new TreeMap<>();
        jdbc.sql(finishedByTask)
                .paramSource(parameters().addValue("range_seconds", (double) range.toSeconds(), Types.DOUBLE))
                .query(rs -> {
                    Map<RunStatus, Long> finished = new EnumMap<>(RunStatus.class);
                    finished.put(RunStatus.SUCCEEDED, rs.getLong("succeeded"));
                    finished.put(RunStatus.FAILED, rs.getLong("failed"));
                    finished.put(RunStatus.CANCELLED, rs.getLong("cancelled"));
                    String taskId = rs.getString("task_id");
                    result.put(
                            taskId,
                            new TaskFigures(
                                    taskId, Map.copyOf(finished), nullable(rs, "p50_ms"), nullable(rs, "p95_ms")));
                });
        return result;
    }

    /** The active runs of each task now, per status, by task id; tasks without any are absent. */
    public Map<String, Map<RunStatus, Long>> activeByTask() {
        Map<String, Map<RunStatus, Long>> result = new TreeMap<>();
        jdbc.sql(activeByTask).paramSource(parameters()).query(rs -> {
            result.computeIfAbsent(rs.getString("task_id"), id -> new EnumMap<>(RunStatus.class))
                    .put(RunStatus.valueOf(rs.getString("status")), rs.getLong("runs"));
        });
        return result;
    }

    /**
     * The series of {@code bucket}-long intervals covering {@code range} before now, oldest first, of all finished
     * runs, those of one queue or those of one task ({@code value} names it; ignored for {@link Scope#ALL}).
     */
    public List<Bucket> series(Duration range, Duration bucket, Scope scope, @Nullable String value) {
        MapSqlParameterSource parameters = parameters()
                .addValue("range_seconds", (double) range.toSeconds(), Types.DOUBLE)
                .addValue("bucket_seconds", (double) bucket.toSeconds(), Types.DOUBLE)
                .addValue("origin", OffsetDateTime.ofInstant(Instant.EPOCH, ZoneOffset.UTC));
        if (scope != Scope.ALL) {
            parameters.addValue("scope_value", value, Types.VARCHAR);
        }
        return jdbc.sql(series.get(scope))
                .paramSource(parameters)
                .query((rs, row) -> new Bucket(
                        rs.getObject("bucket_start", OffsetDateTime.class).toInstant(),
                        rs.getLong("finished"),
                        rs.getLong("failed"),
                        nullable(rs, "p50_ms"),
                        nullable(rs, "p95_ms")))
                .list();
    }

    private MapSqlParameterSource parameters() {
        return new MapSqlParameterSource().addValue("environment", environment, Types.VARCHAR);
    }

    private static @Nullable Double nullable(ResultSet rs, String column) throws SQLException {
        double value = rs.getDouble(column);
        return rs.wasNull() ? null : value;
    }
}

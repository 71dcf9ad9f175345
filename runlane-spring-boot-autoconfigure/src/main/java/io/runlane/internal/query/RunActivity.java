package io.runlane.internal.query;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the runs of the environment did recently, for the console (S-CO-1): runs finished per interval, and the
 * workers holding leases of running attempts across all instances. Both read small ranges of partial indexes, so they
 * stay cheap however many runs are retained; {@link RunStatistics} reads the queues' current state.
 */
public final class RunActivity {

    /** One interval of {@link #finishedSince}: runs that became terminal in it, per terminal status. */
    public record FinishedInterval(Instant start, Map<RunStatus, Long> counts) {}

    /** A worker holding leases: how many running attempts, and when its latest lease expires. */
    public record WorkerLeases(String worker, long runs, Instant leaseExpiresAt) {}

    /**
     * Terminal runs per status and interval since a moment before now. The range on {@code finished_at} per terminal
     * status is served by {@code runs_finished_idx}; the intervals are aligned on {@code :origin} (as {@code date_bin}
     * would, in arithmetic PostgreSQL 13 has) so that consecutive reads agree on their boundaries.
     */
    private static final String FINISHED_SINCE = """
            SELECT :origin + floor(extract(epoch FROM finished_at - :origin) / :interval_seconds)
                             * make_interval(secs => :interval_seconds) AS interval_start,
                   status, count(*) AS runs
            FROM {schema}.runs
            WHERE environment = :environment
              AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
              AND finished_at >= statement_timestamp() - make_interval(secs => :window_seconds)
            GROUP BY interval_start, status
            """;

    /** S-EX-1: the lease owners of running attempts, from the small {@code runs_running_idx} range. */
    private static final String LEASES_BY_WORKER = """
            SELECT lease_owner, count(*) AS runs, max(lease_expires_at) AS lease_expires_at
            FROM {schema}.runs
            WHERE environment = :environment
              AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
              AND lease_expires_at IS NOT NULL AND lease_owner IS NOT NULL
            GROUP BY lease_owner
            ORDER BY lease_owner
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String finishedSince;

    private final String leasesByWorker;

    public RunActivity(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.finishedSince = sql.format(FINISHED_SINCE);
        this.leasesByWorker = sql.format(LEASES_BY_WORKER);
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

    /** The workers of every instance that hold leases of running attempts now, by worker id. */
    public List<WorkerLeases> leasesByWorker() {
        return jdbc.sql(leasesByWorker)
                .paramSource(new MapSqlParameterSource().addValue("environment", environment, Types.VARCHAR))
                .query((rs, row) -> new WorkerLeases(
                        rs.getString("lease_owner"),
                        rs.getLong("runs"),
                        rs.getObject("lease_expires_at", OffsetDateTime.class).toInstant()))
                .list();
    }
}

package io.runlane.internal.query;

import io.runlane.internal.kernel.SqlTemplate;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The backlog of a throttled task's keys for the console (S-TH-1, S-CO-20): per key, the runs waiting to start, the
 * attempt starts in the current window and when the next start may happen, judged on the database clock as the
 * throttled claim judges it. The keys with the largest backlog come first, at most {@code maxKeys} of them.
 *
 * <p>The waiting runs are read from the task's range of {@code runs_throttled_waiting_due_idx} (changeset 019), which
 * holds throttled runs only, and each listed key's starts from {@code throttle_starts_window_idx}, from the window's
 * lower bound: the cost follows the task's backlog, not the runs retained.
 */
public final class ThrottleBacklogs {

    /**
     * One key's backlog.
     *
     * @param key the throttle key, the empty string for one throttle for the whole task
     * @param waiting the key's runs waiting to start (queued, scheduled, retrying, released or waiting)
     * @param oldestDue the earliest due time among them
     * @param startsInWindow the key's attempt starts within the last period
     * @param nextFreeSlot when the key may start again ({@code null} when it may now): the moment the oldest of the
     *     window's last {@code limit} starts leaves the window, always after the statement's time
     */
    public record KeyBacklog(
            String key,
            long waiting,
            Instant oldestDue,
            long startsInWindow,
            @Nullable Instant nextFreeSlot) {}

    private static final String BY_KEY = """
            SELECT b.throttle_key, b.waiting, b.oldest_due, w.started, w.next_free
            FROM (SELECT r.throttle_key, count(*) AS waiting, min(r.run_at) AS oldest_due
                  FROM {schema}.runs r
                  WHERE r.task_id = :taskId AND r.environment = :environment AND r.throttle_key IS NOT NULL
                    AND r.status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING')
                  GROUP BY r.throttle_key
                  ORDER BY count(*) DESC, r.throttle_key
                  LIMIT :maxKeys) b
            CROSS JOIN LATERAL (
                SELECT count(*) AS started,
                       CASE WHEN count(*) >= :limit
                            THEN (array_agg(s.started_at ORDER BY s.started_at DESC))[:limit]
                                 + :periodMs * interval '1 millisecond'
                       END AS next_free
                FROM {schema}.throttle_starts s
                WHERE s.environment = :environment AND s.task_id = :taskId AND s.throttle_key = b.throttle_key
                  AND s.started_at > statement_timestamp() - :periodMs * interval '1 millisecond') w
            ORDER BY b.waiting DESC, b.throttle_key
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String byKey;

    public ThrottleBacklogs(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.byKey = sql.format(BY_KEY);
    }

    /** The backlog of the task's keys under a throttle of {@code limit} starts per {@code period}. */
    public List<KeyBacklog> keys(String taskId, int limit, Duration period, int maxKeys) {
        return jdbc.sql(byKey)
                .param("taskId", taskId)
                .param("environment", environment)
                .param("limit", limit)
                .param("periodMs", period.toMillis())
                .param("maxKeys", maxKeys)
                .query((rs, row) -> {
                    OffsetDateTime nextFree = rs.getObject("next_free", OffsetDateTime.class);
                    return new KeyBacklog(
                            rs.getString("throttle_key"),
                            rs.getLong("waiting"),
                            rs.getObject("oldest_due", OffsetDateTime.class).toInstant(),
                            rs.getLong("started"),
                            nextFree == null ? null : nextFree.toInstant());
                })
                .list();
    }
}

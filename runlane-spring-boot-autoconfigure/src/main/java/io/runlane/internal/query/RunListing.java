package io.runlane.internal.query;

import io.runlane.ConfigurationInvalidException;
import io.runlane.Page;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.internal.lifecycle.RunRowMapper;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Lists runs with filters and keyset paging (S-OP-1). Runs come in descending id order; run ids are time-ordered
 * (UUID version 7), so that is newest first. The cursor encodes the last id of a page and the next page continues
 * strictly below it, so a run is never repeated or skipped between pages, and runs created while paging (higher
 * ids) do not shift the pages.
 */
public final class RunListing {

    private static final String CURSOR_PREFIX = "r1:";

    private final JdbcClient jdbc;

    private final String environment;

    private final String schema;

    public RunListing(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.schema = sql.schema();
    }

    public Page<Run> list(RunQuery query) {
        MapSqlParameterSource params = new MapSqlParameterSource().addValue("limit", query.limit() + 1, Types.INTEGER);
        StringBuilder sql = filtered(query, query.statuses(), decode(query.cursor()), params);
        sql.append(" ORDER BY id DESC LIMIT :limit");
        List<Run> rows = new ArrayList<>(jdbc.sql(sql.toString())
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .list());
        String next = null;
        if (rows.size() > query.limit()) {
            rows.remove(rows.size() - 1);
            next = encode(rows.get(rows.size() - 1).id());
        }
        return new Page<>(rows, next);
    }

    /**
     * The next window of a bulk action (S-RV-4): at most {@code limit} runs the query's filters select, but in one of
     * {@code statuses} instead of the query's, newest first, below {@code below} or, for the first window, after the
     * query's cursor. Read without locks: the action locks each run before it acts on it.
     */
    public List<Run> window(RunQuery query, Set<RunStatus> statuses, @Nullable UUID below, int limit) {
        MapSqlParameterSource params = new MapSqlParameterSource().addValue("limit", limit, Types.INTEGER);
        StringBuilder sql = filtered(query, statuses, below != null ? below : decode(query.cursor()), params);
        sql.append(" ORDER BY id DESC LIMIT :limit");
        return jdbc.sql(sql.toString())
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .list();
    }

    private StringBuilder filtered(
            RunQuery query, Set<RunStatus> statuses, @Nullable UUID below, MapSqlParameterSource params) {
        params.addValue("environment", environment, Types.VARCHAR);
        StringBuilder sql = new StringBuilder("SELECT * FROM " + schema + ".runs WHERE environment = :environment");
        if (!statuses.isEmpty()) {
            sql.append(" AND status IN (:statuses)");
            params.addValue(
                    "statuses", statuses.stream().map(RunStatus::name).sorted().toList());
        }
        if (!query.taskIds().isEmpty()) {
            sql.append(" AND task_id IN (:taskIds)");
            params.addValue("taskIds", query.taskIds());
        }
        if (!query.queues().isEmpty()) {
            sql.append(" AND queue IN (:queues)");
            params.addValue("queues", query.queues());
        }
        condition(sql, params, "idempotency_key =", "idempotencyKey", query.idempotencyKey(), Types.VARCHAR);
        condition(sql, params, "singleton_key =", "singletonKey", query.singletonKey(), Types.VARCHAR);
        condition(
                sql,
                params,
                "created_at >=",
                "createdFrom",
                timestamp(query.createdFrom()),
                Types.TIMESTAMP_WITH_TIMEZONE);
        condition(
                sql, params, "created_at <", "createdTo", timestamp(query.createdTo()), Types.TIMESTAMP_WITH_TIMEZONE);
        condition(
                sql,
                params,
                "finished_at >=",
                "finishedFrom",
                timestamp(query.finishedFrom()),
                Types.TIMESTAMP_WITH_TIMEZONE);
        condition(
                sql,
                params,
                "finished_at <",
                "finishedTo",
                timestamp(query.finishedTo()),
                Types.TIMESTAMP_WITH_TIMEZONE);
        if (!query.failureCodes().isEmpty()) {
            sql.append(" AND failure_code IN (:failureCodes)");
            params.addValue(
                    "failureCodes", query.failureCodes().stream().sorted().toList());
        }
        if (!query.sources().isEmpty()) {
            sql.append(" AND (")
                    .append(String.join(
                            " OR ",
                            query.sources().stream()
                                    .sorted()
                                    .map(RunListing::source)
                                    .toList()))
                    .append(')');
        }
        condition(sql, params, "schedule_id =", "scheduleId", query.scheduleId(), Types.VARCHAR);
        condition(sql, params, "id <", "after", below, Types.OTHER);
        return sql;
    }

    /**
     * The condition of one source (S-OP-14), a constant: derived runs by their source type, the runs of schedules by
     * their schedule id, triggered runs by having neither.
     */
    private static String source(RunSource source) {
        return switch (source) {
            case TRIGGER -> "(source_type IS NULL AND schedule_id IS NULL)";
            case SCHEDULE -> "(source_type IS NULL AND schedule_id IS NOT NULL)";
            case RERUN, RETRY, FORK -> "source_type = '" + source.name() + "'";
        };
    }

    private static void condition(
            StringBuilder sql,
            MapSqlParameterSource params,
            String column,
            String name,
            @Nullable Object value,
            int type) {
        if (value != null) {
            sql.append(" AND ").append(column).append(" :").append(name);
            params.addValue(name, value, type);
        }
    }

    private static @Nullable OffsetDateTime timestamp(@Nullable Instant instant) {
        Instant bound = TimeRules.clamp(instant);
        return bound == null ? null : OffsetDateTime.ofInstant(bound, ZoneOffset.UTC);
    }

    static String encode(UUID lastId) {
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((CURSOR_PREFIX + lastId).getBytes(StandardCharsets.UTF_8));
    }

    static @Nullable UUID decode(@Nullable String cursor) {
        if (cursor == null || cursor.isEmpty()) {
            return null;
        }
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (!decoded.startsWith(CURSOR_PREFIX)) {
                throw new IllegalArgumentException("unknown cursor version");
            }
            return UUID.fromString(decoded.substring(CURSOR_PREFIX.length()));
        } catch (IllegalArgumentException ex) {
            throw new ConfigurationInvalidException("cursor", "is not a cursor this API returned", ex);
        }
    }
}

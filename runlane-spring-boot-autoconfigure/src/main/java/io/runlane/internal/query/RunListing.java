package io.runlane.internal.query;

import io.runlane.ConfigurationInvalidException;
import io.runlane.Page;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextSanitizer;
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
        Statement statement = statement(query);
        List<Run> rows = new ArrayList<>(jdbc.sql(statement.sql())
                .paramSource(statement.params())
                .query(RunRowMapper.INSTANCE)
                .list());
        String next = null;
        if (rows.size() > query.limit()) {
            rows.remove(rows.size() - 1);
            next = encode(rows.get(rows.size() - 1).id());
        }
        return new Page<>(rows, next);
    }

    /** The statement of one page of {@link #list}: one row more than the page, to tell whether another follows. */
    Statement statement(RunQuery query) {
        MapSqlParameterSource params = new MapSqlParameterSource().addValue("limit", query.limit() + 1, Types.INTEGER);
        StringBuilder sql = filtered(query, query.statuses(), decode(query.cursor()), params);
        sql.append(" ORDER BY id DESC LIMIT :limit");
        return new Statement(sql.toString(), params);
    }

    record Statement(String sql, MapSqlParameterSource params) {}

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
        prefix(sql, params, "idempotency_key", "idempotencyKeyPrefix", query.idempotencyKeyPrefix());
        prefix(sql, params, "singleton_key", "singletonKeyPrefix", query.singletonKeyPrefix());
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
        if (!query.failureCodes().isEmpty() || query.failureMessagePrefix() != null) {
            // S-OP-15: only runs with a failure, the predicate of runs_failure_idx, which then serves the walk
            sql.append(" AND failure_code IS NOT NULL");
        }
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
        condition(sql, params, "priority >=", "minPriority", query.minPriority(), Types.INTEGER);
        condition(sql, params, "priority <=", "maxPriority", query.maxPriority(), Types.INTEGER);
        if (query.failureMessagePrefix() != null) {
            // S-OP-15: a literal prefix; the message is stored with U+0000 replaced (S-EX-25), so the prefix is too.
            sql.append(" AND failure_message LIKE :failureMessagePattern ESCAPE '\\'");
            params.addValue(
                    "failureMessagePattern",
                    likePrefix(TextSanitizer.storable(query.failureMessagePrefix())),
                    Types.VARCHAR);
        }
        condition(sql, params, "id <", "after", below, Types.OTHER);
        return sql;
    }

    /**
     * S-OP-15: the keys that start with {@code prefix}, as the range {@code [prefix, successor)} of the column in the
     * "C" collation, where text compares by code point (UTF-8 bytes), so the range holds exactly the keys with the
     * prefix whatever the database's collation. No index holds every key (one would cost every keyed trigger an index
     * entry), so the range narrows the newest-first walk like the other filters without an index.
     */
    private static void prefix(
            StringBuilder sql, MapSqlParameterSource params, String column, String name, @Nullable String prefix) {
        if (prefix == null) {
            return;
        }
        sql.append(" AND ").append(column).append(" COLLATE \"C\" >= :").append(name);
        params.addValue(name, prefix, Types.VARCHAR);
        String end = successor(prefix);
        if (end != null) {
            sql.append(" AND ")
                    .append(column)
                    .append(" COLLATE \"C\" < :")
                    .append(name)
                    .append("End");
            params.addValue(name + "End", end, Types.VARCHAR);
        } else {
            sql.append(" AND starts_with(")
                    .append(column)
                    .append(", :")
                    .append(name)
                    .append(')');
        }
    }

    /**
     * The least text above every text that starts with {@code prefix}: the prefix with its last code point below
     * U+10FFFF increased by one (past the surrogates, which no text holds) and what follows it dropped; {@code null}
     * when every code point is U+10FFFF.
     */
    static @Nullable String successor(String prefix) {
        int[] codePoints = prefix.codePoints().toArray();
        for (int i = codePoints.length - 1; i >= 0; i--) {
            if (codePoints[i] < Character.MAX_CODE_POINT) {
                int next = codePoints[i] + 1;
                codePoints[i] = (next >= Character.MIN_SURROGATE && next <= Character.MAX_SURROGATE) ? 0xE000 : next;
                return new String(codePoints, 0, i + 1);
            }
        }
        return null;
    }

    /** A {@code LIKE} pattern, escape {@code \}, of the texts that start with {@code prefix} taken literally. */
    static String likePrefix(String prefix) {
        StringBuilder pattern = new StringBuilder(prefix.length() + 1);
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '%' || c == '_' || c == '\\') {
                pattern.append('\\');
            }
            pattern.append(c);
        }
        return pattern.append('%').toString();
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

package io.runlane.internal.schedule;

import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.lifecycle.RunRowMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The schedules table's SQL (S-SC). Every statement is scoped to one environment. Firing claims due rows with
 * {@code FOR UPDATE SKIP LOCKED}, so each due schedule is fired by one instance at a time, and the caller advances
 * {@code next_fire_at} in the same transaction (S-SC-2).
 */
final class ScheduleStore {

    private static final String COLUMNS = """
            s.id, s.task_id, s.cron, s.every_ms, s.zone, s.payload::text AS payload, s.overlap, s.catch_up, s.paused,
            s.declared, s.next_fire_at, s.last_fire_at, s.last_run_id, r.status AS last_run_status, s.skipped_count""";

    private static final String SELECT = "SELECT " + COLUMNS + """

            FROM {schema}.schedules s
            LEFT JOIN {schema}.runs r ON r.id = s.last_run_id
            WHERE s.environment = :environment""";

    /**
     * Creates or changes a schedule in one statement. A change keeps {@code next_fire_at} while the cron
     * expression, the interval and the zone are unchanged, so a redeploy never moves an occurrence (S-SC-1); when
     * they changed, the next occurrence computed from now replaces it. A run-time upsert never changes a declared
     * row ({@code WHERE}, S-SC-8): it then returns no row. A declaration takes over a run-time row of its id.
     */
    private static final String UPSERT = """
            INSERT INTO {schema}.schedules AS s (environment, id, task_id, cron, every_ms, zone, payload, overlap,
                catch_up, declared, next_fire_at, created_at, updated_at)
            VALUES (:environment, :id, :taskId, :cron, :everyMs, :zone, CAST(:payload AS jsonb), :overlap, :catchUp,
                :declared, cast(:nextFireAt AS timestamptz), now(), now())
            ON CONFLICT (environment, id) DO UPDATE SET
                task_id = EXCLUDED.task_id, cron = EXCLUDED.cron, every_ms = EXCLUDED.every_ms, zone = EXCLUDED.zone,
                payload = EXCLUDED.payload, overlap = EXCLUDED.overlap, catch_up = EXCLUDED.catch_up,
                declared = EXCLUDED.declared,
                next_fire_at = CASE
                    WHEN s.cron IS NOT DISTINCT FROM EXCLUDED.cron AND s.every_ms IS NOT DISTINCT FROM EXCLUDED.every_ms
                        AND s.zone = EXCLUDED.zone THEN s.next_fire_at
                    ELSE EXCLUDED.next_fire_at END,
                updated_at = now()
            WHERE EXCLUDED.declared OR NOT s.declared
            RETURNING s.id""";

    /**
     * S-SC-2: locks due schedules of this application's tasks, skipping rows another instance is firing; {@code
     * now()} is the transaction's database time, which every occurrence is compared with (S-RL-3).
     */
    private static final String CLAIM_DUE = "SELECT " + COLUMNS + """
            , now() AS db_now
            FROM {schema}.schedules s
            LEFT JOIN {schema}.runs r ON r.id = s.last_run_id
            WHERE s.environment = :environment AND NOT s.paused AND s.next_fire_at <= now()
              AND s.task_id = ANY(:taskIds) AND NOT s.id = ANY(:excluded)
            ORDER BY s.next_fire_at
            LIMIT :limit
            FOR UPDATE OF s SKIP LOCKED""";

    /** Advances a claimed schedule past the occurrences just handled, in the claiming transaction (S-SC-2). */
    private static final String ADVANCE = """
            UPDATE {schema}.schedules
            SET next_fire_at = cast(:nextFireAt AS timestamptz),
                last_fire_at = coalesce(cast(:lastFireAt AS timestamptz), last_fire_at),
                last_run_id = coalesce(cast(:lastRunId AS uuid), last_run_id), skipped_count = skipped_count + :skipped,
                updated_at = now()
            WHERE environment = :environment AND id = :id""";

    /** How long until the earliest schedule this application fires is due; negative when one is overdue. */
    private static final String NEXT_DUE_IN = """
            SELECT (extract(epoch FROM min(next_fire_at) - now()) * 1000)::bigint
            FROM {schema}.schedules
            WHERE environment = :environment AND NOT paused AND task_id = ANY(:taskIds)""";

    private static final String SET_PAUSED = """
            UPDATE {schema}.schedules SET paused = :paused, updated_at = now()
            WHERE environment = :environment AND id = :id""";

    private static final String DELETE = """
            DELETE FROM {schema}.schedules WHERE environment = :environment AND id = :id""";

    /** Schedules whose next occurrence is overdue by more than the given age, for health (S-SC-5). */
    private static final String OVERDUE = """
            SELECT id FROM {schema}.schedules
            WHERE environment = :environment AND NOT paused AND next_fire_at < now() - :ageMs * interval '1 millisecond'
            ORDER BY next_fire_at LIMIT 20""";

    /**
     * S-OP-14: records the schedule of a run it just created, in the transaction that created it. The run is the
     * schedule's whatever the run's row holds otherwise; a run already recorded keeps its schedule.
     */
    private static final String RECORD_RUN = """
            UPDATE {schema}.runs SET schedule_id = :id
            WHERE environment = :environment AND id = :runId AND schedule_id IS NULL AND source_type IS NULL
            RETURNING *""";

    private static final String NOW = "SELECT now()";

    private static final RowMapper<StoredSchedule> ROWS = (rs, row) -> schedule(rs);

    private final JdbcClient jdbc;

    private final String environment;

    private final String select;

    private final String upsert;

    private final String claimDue;

    private final String advance;

    private final String nextDueIn;

    private final String setPaused;

    private final String delete;

    private final String overdue;

    private final String recordRun;

    ScheduleStore(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.select = sql.format(SELECT);
        this.upsert = sql.format(UPSERT);
        this.claimDue = sql.format(CLAIM_DUE);
        this.advance = sql.format(ADVANCE);
        this.nextDueIn = sql.format(NEXT_DUE_IN);
        this.setPaused = sql.format(SET_PAUSED);
        this.delete = sql.format(DELETE);
        this.overdue = sql.format(OVERDUE);
        this.recordRun = sql.format(RECORD_RUN);
    }

    /** The database's current time (the transaction's start when called in one). */
    Instant now() {
        return jdbc.sql(NOW).query(OffsetDateTime.class).single().toInstant();
    }

    List<StoredSchedule> all() {
        return jdbc.sql(select + " ORDER BY s.id")
                .paramSource(params())
                .query(ROWS)
                .list();
    }

    Optional<StoredSchedule> find(String id) {
        return jdbc.sql(select + " AND s.id = :id")
                .paramSource(params().addValue("id", id))
                .query(ROWS)
                .optional();
    }

    /** Writes the schedule; false when a run-time upsert met a declared row and changed nothing. */
    boolean upsert(ValidSchedule schedule, boolean declared, @Nullable Instant nextFireAt) {
        Recurrence recurrence = schedule.recurrence();
        Duration every = recurrence.every();
        MapSqlParameterSource params = params().addValue("id", schedule.id())
                .addValue("taskId", schedule.task().id())
                .addValue("cron", recurrence.cron(), Types.VARCHAR)
                .addValue("everyMs", every == null ? null : every.toMillis(), Types.BIGINT)
                .addValue("zone", recurrence.zone().getId())
                .addValue("payload", schedule.payloadJson())
                .addValue("overlap", schedule.overlap().name())
                .addValue("catchUp", schedule.catchUp().name())
                .addValue("declared", declared)
                .addValue("nextFireAt", TextParameters.timestamp(nextFireAt), Types.VARCHAR);
        return jdbc.sql(upsert)
                .paramSource(params)
                .query(String.class)
                .optional()
                .isPresent();
    }

    /** Locks due schedules of these tasks, leaving out the excluded ids (ones that failed in this pass). */
    List<DueSchedule> claimDue(Collection<String> taskIds, Collection<String> excluded, int limit) {
        MapSqlParameterSource params = params().addValue("taskIds", new SqlArrayValue("text", taskIds.toArray()))
                .addValue("excluded", new SqlArrayValue("text", excluded.toArray()))
                .addValue("limit", limit);
        return jdbc.sql(claimDue)
                .paramSource(params)
                .query((rs, row) -> new DueSchedule(schedule(rs), instant(rs, "db_now")))
                .list();
    }

    void advance(
            String id,
            @Nullable Instant nextFireAt,
            @Nullable Instant lastFireAt,
            @Nullable UUID lastRunId,
            int skipped) {
        MapSqlParameterSource params = params().addValue("id", id)
                .addValue("nextFireAt", TextParameters.timestamp(nextFireAt), Types.VARCHAR)
                .addValue("lastFireAt", TextParameters.timestamp(lastFireAt), Types.VARCHAR)
                .addValue("lastRunId", TextParameters.uuid(lastRunId), Types.VARCHAR)
                .addValue("skipped", skipped);
        jdbc.sql(advance).paramSource(params).update();
    }

    /** Milliseconds until the earliest due schedule of these tasks, or empty when there is none. */
    Optional<Long> nextDueInMillis(Collection<String> taskIds) {
        return jdbc.sql(nextDueIn)
                .paramSource(params().addValue("taskIds", new SqlArrayValue("text", taskIds.toArray())))
                .query(rs -> {
                    rs.next();
                    long millis = rs.getLong(1);
                    return rs.wasNull() ? Optional.<Long>empty() : Optional.of(millis);
                });
    }

    boolean setPaused(String id, boolean paused) {
        return jdbc.sql(setPaused)
                        .paramSource(params().addValue("id", id).addValue("paused", paused))
                        .update()
                > 0;
    }

    boolean delete(String id) {
        return jdbc.sql(delete).paramSource(params().addValue("id", id)).update() > 0;
    }

    List<String> overdue(Duration age) {
        return jdbc.sql(overdue)
                .paramSource(params().addValue("ageMs", age.toMillis()))
                .query(String.class)
                .list();
    }

    /** Records that the schedule created the run (S-OP-14); the run as it now is, empty if it was not recorded. */
    Optional<Run> recordRun(String id, UUID runId) {
        return jdbc.sql(recordRun)
                .paramSource(params().addValue("id", id).addValue("runId", runId, Types.OTHER))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    private MapSqlParameterSource params() {
        return new MapSqlParameterSource().addValue("environment", environment);
    }

    private static StoredSchedule schedule(ResultSet rs) throws SQLException {
        String lastRunStatus = rs.getString("last_run_status");
        long everyMs = rs.getLong("every_ms");
        boolean noInterval = rs.wasNull();
        return new StoredSchedule(
                rs.getString("id"),
                rs.getString("task_id"),
                rs.getString("cron"),
                noInterval ? null : everyMs,
                rs.getString("zone"),
                rs.getString("payload"),
                OverlapPolicy.valueOf(rs.getString("overlap")),
                CatchUpPolicy.valueOf(rs.getString("catch_up")),
                rs.getBoolean("paused"),
                rs.getBoolean("declared"),
                instant(rs, "next_fire_at"),
                instant(rs, "last_fire_at"),
                rs.getObject("last_run_id", UUID.class),
                lastRunStatus == null ? null : RunStatus.valueOf(lastRunStatus),
                rs.getLong("skipped_count"));
    }

    private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** A claimed schedule and the database time of the claim. */
    record DueSchedule(StoredSchedule schedule, Instant now) {}
}

package io.runlane.internal.query;

import io.runlane.Run;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import java.sql.Types;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Reads runs, their events and key owners, always within the configured environment (S-OP-1). */
public final class RunReads {

    private static final String GET = """
            SELECT * FROM {schema}.runs WHERE id = :id AND environment = :environment
            """;

    /**
     * S-RL-2: a run's events. Event 1 (created) is not stored but read off the run's row, unless the run was created
     * before that change and its event 1 is stored.
     */
    private static final String EVENTS = """
            SELECT r.id AS run_id, 1 AS seq, 'CREATED' AS type,
                   CASE WHEN r.created_scheduled THEN 'SCHEDULED' ELSE 'QUEUED' END AS status,
                   r.created_at, 'runlane' AS actor, NULL AS detail
            FROM {schema}.runs r
            WHERE r.id = :id AND r.environment = :environment
              AND NOT EXISTS (SELECT FROM {schema}.run_events e WHERE e.run_id = r.id AND e.seq = 1)
            UNION ALL
            SELECT e.* FROM {schema}.run_events e JOIN {schema}.runs r ON r.id = e.run_id
            WHERE e.run_id = :id AND r.environment = :environment
            ORDER BY seq
            """;

    /** S-EX-35: the stored failure with its stack trace, which {@code Run} does not carry. */
    private static final String FAILURE_STACK = """
            SELECT failure_code, failure_class, failure_message, failure_stack FROM {schema}.runs
            WHERE id = :id AND environment = :environment
            """;

    /** S-IK-2, S-IK-3, S-IK-10: an owner counts while active or until its retention passes. */
    private static final String CURRENT_OWNER = KeyOwnership.currentOwner("r");

    private static final String ACTIVE_SINGLETON_OWNER = """
            SELECT id FROM {schema}.runs
            WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
              AND finished_at IS NULL AND NOT singleton_released
            """;

    /** Served by the partial unique index runs_idempotency_key_owner_uq: an active holder is an active owner. */
    private static final String ACTIVE_BY_IDEMPOTENCY_KEY = "SELECT r.* FROM {schema}.runs r WHERE "
            + KeyOwnership.keyIs("r") + "\n AND " + KeyOwnership.holds("r") + """

              AND r.finished_at IS NULL
              AND (cast(:singletonKey AS text) IS NULL OR r.singleton_key = :singletonKey)
            """;

    /** Served by the partial unique index runs_active_singleton_uq. */
    private static final String ACTIVE_BY_SINGLETON_KEY = """
            SELECT * FROM {schema}.runs
            WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
              AND finished_at IS NULL AND NOT singleton_released
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String get;

    private final String events;

    private final String failureStack;

    private final String currentOwner;

    private final String activeSingletonOwner;

    private final String activeByIdempotencyKey;

    private final String activeBySingletonKey;

    public RunReads(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.get = sql.format(GET);
        this.events = sql.format(EVENTS);
        this.failureStack = sql.format(FAILURE_STACK);
        this.currentOwner = sql.format(CURRENT_OWNER);
        this.activeSingletonOwner = sql.format(ACTIVE_SINGLETON_OWNER);
        this.activeByIdempotencyKey = sql.format(ACTIVE_BY_IDEMPOTENCY_KEY);
        this.activeBySingletonKey = sql.format(ACTIVE_BY_SINGLETON_KEY);
    }

    public Optional<Run> get(UUID runId) {
        return jdbc.sql(get)
                .paramSource(byId(runId))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    public List<RunEvent> events(UUID runId) {
        return jdbc.sql(events)
                .paramSource(byId(runId))
                .query((rs, rowNum) -> new RunEvent(
                        rs.getObject("run_id", UUID.class),
                        rs.getInt("seq"),
                        RunEventType.valueOf(rs.getString("type")),
                        RunStatus.valueOf(rs.getString("status")),
                        RunRowMapper.instant(rs, "created_at"),
                        rs.getString("actor"),
                        rs.getString("detail")))
                .list();
    }

    /**
     * The stack trace stored with the failure of {@code run} (S-EX-35), for the console and the actuator endpoint:
     * {@code null} when the run has no failure, its failure had no exception, or the run's failure changed since
     * {@code run} was read (the stack trace would be another failure's).
     */
    public @Nullable String failureStack(Run run) {
        RunFailure failure = run.failure();
        if (failure == null) {
            return null;
        }
        List<@Nullable String> stacks = jdbc.sql(failureStack)
                .paramSource(byId(run.id()))
                .query((rs, rowNum) -> {
                    String code = rs.getString("failure_code");
                    boolean same = code != null
                            && failure.equals(new RunFailure(
                                    code, rs.getString("failure_class"), rs.getString("failure_message")));
                    return same ? rs.getString("failure_stack") : null;
                })
                .list();
        return stacks.isEmpty() ? null : stacks.get(0);
    }

    /** The active or still-retained owner of an idempotency key. */
    public Optional<Run> findCurrentOwner(String taskId, String idempotencyKey) {
        return jdbc.sql(currentOwner)
                .paramSource(keys(taskId, idempotencyKey, null))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /** The active run holding a singleton key (S-SK-1). */
    public Optional<UUID> findActiveSingletonOwner(String taskId, String singletonKey) {
        return jdbc.sql(activeSingletonOwner)
                .paramSource(keys(taskId, null, singletonKey))
                .query((rs, rowNum) -> rs.getObject("id", UUID.class))
                .optional();
    }

    /** The active run of the task with every given key (at least one); advisory (S-OP-1). */
    public Optional<Run> findActive(String taskId, @Nullable String idempotencyKey, @Nullable String singletonKey) {
        return jdbc.sql(idempotencyKey != null ? activeByIdempotencyKey : activeBySingletonKey)
                .paramSource(keys(taskId, idempotencyKey, singletonKey))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    private MapSqlParameterSource byId(UUID runId) {
        return new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR);
    }

    private MapSqlParameterSource keys(String taskId, @Nullable String idempotencyKey, @Nullable String singletonKey) {
        return new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", taskId, Types.VARCHAR)
                .addValue("idempotencyKey", idempotencyKey, Types.VARCHAR)
                .addValue("singletonKey", singletonKey, Types.VARCHAR);
    }
}

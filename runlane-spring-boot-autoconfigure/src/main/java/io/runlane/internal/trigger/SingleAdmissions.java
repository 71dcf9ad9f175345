package io.runlane.internal.trigger;

import io.runlane.Run;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TraceContextColumn;
import java.sql.Types;
import java.util.Optional;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The single-run admission statements of {@link RunAdmissions}: one for a run with an idempotency key (the key's
 * owner answers, else the run is inserted with both key indexes arbitrating) and one for a run without (inserted
 * unless a singleton holder refuses it). Each comes plain, and bounded by the group statement's lock timeout for a
 * {@link GroupCommit} group of one ({@link BatchAdmissions#GROUP_LOCK_TIMEOUT}).
 */
final class SingleAdmissions {

    /** The new run's row; {@code %s} takes one more {@code FROM} item, the group's lock bound or nothing. */
    private static final String RUN_VALUES = """
            SELECT :id, :environment, :taskId, :queue,
                   CASE WHEN due.run_at > statement_timestamp() THEN 'SCHEDULED' ELSE 'QUEUED' END,
                   cast(:payload AS jsonb), :idempotencyKey, :idempotencyKeyTtlMs, :singletonKey, :concurrencyKey,
                   :maxAttempts, due.run_at, statement_timestamp(), statement_timestamp(), :sourceType,
                   cast(:sourceRunId AS uuid),
                   due.run_at > statement_timestamp(), cast(:traceContext AS jsonb), :priority,
                   cast(:debounceKey AS text), CASE WHEN :debounceKey IS NULL THEN NULL ELSE statement_timestamp() END,
                   :throttleKey
            FROM (SELECT coalesce(cast(:runAt AS timestamptz), statement_timestamp() + coalesce(:delayMs, 0) * interval '1 millisecond')
                         AS run_at) due%s
            """;

    private static final String RUN_COLUMNS = """
            INSERT INTO {schema}.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                       idempotency_key_ttl_ms, singleton_key, concurrency_key, max_attempts,
                                       run_at, created_at, updated_at, source_type, source_run_id, created_scheduled,
                                       trace_context, priority, debounce_key, debounce_started_at, throttle_key)
            """;

    /** S-SK-4: the conflict target is the partial unique index runs_active_singleton_uq. */
    static final String ON_SINGLETON_CONFLICT = """
            ON CONFLICT (environment, task_id, singleton_key)
                WHERE singleton_key IS NOT NULL AND finished_at IS NULL AND NOT singleton_released
            DO NOTHING
            RETURNING *
            """;

    private static final String CREATED = """
            SELECT true AS created, inserted_run.* FROM inserted_run
            """;

    private static final String ADMIT_WITHOUT_IDEMPOTENCY_KEY =
            "WITH inserted_run AS (\n" + RUN_COLUMNS + RUN_VALUES + ON_SINGLETON_CONFLICT + ")\n" + CREATED;

    /**
     * S-IK-1, S-SK-4: the key's owner answers if it has one; only otherwise is the run inserted, with both partial
     * unique indexes arbitrating. Reading the owner first spares a duplicate forming and probing a new row.
     */
    private static final String ADMIT_WITH_IDEMPOTENCY_KEY = "WITH current_owner AS (\n"
            + KeyOwnership.currentOwner("r") + "\n), inserted_run AS (\n" + RUN_COLUMNS + RUN_VALUES + """
            WHERE NOT EXISTS (SELECT FROM current_owner)
            ON CONFLICT DO NOTHING
            RETURNING *
            )
            """ + CREATED
            + """
            UNION ALL
            SELECT false, current_owner.* FROM current_owner
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String admitWithKey;

    private final String admitWithKeyBounded;

    private final String insertWithoutKey;

    private final String insertWithoutKeyBounded;

    SingleAdmissions(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.admitWithKey = sql.format(ADMIT_WITH_IDEMPOTENCY_KEY.formatted(""));
        this.admitWithKeyBounded = sql.format(ADMIT_WITH_IDEMPOTENCY_KEY.formatted(BatchAdmissions.GROUP_LOCK_TIMEOUT));
        this.insertWithoutKey = sql.format(ADMIT_WITHOUT_IDEMPOTENCY_KEY.formatted(""));
        this.insertWithoutKeyBounded =
                sql.format(ADMIT_WITHOUT_IDEMPOTENCY_KEY.formatted(BatchAdmissions.GROUP_LOCK_TIMEOUT));
    }

    /** The key's owner ({@code Existing}) or the inserted run ({@code Created}); empty when neither was read. */
    Optional<Admission> admitWithKey(MapSqlParameterSource params, boolean bounded) {
        return jdbc.sql(bounded ? admitWithKeyBounded : admitWithKey)
                .paramSource(params)
                .<Admission>query((rs, rowNum) -> {
                    Run stored = RunRowMapper.INSTANCE.mapRow(rs, rowNum);
                    return rs.getBoolean("created") ? new Admission.Created(stored) : new Admission.Existing(stored);
                })
                .optional();
    }

    /** The inserted run; empty when a singleton holder refused it. */
    Optional<Run> insertWithoutKey(MapSqlParameterSource params, boolean bounded) {
        return jdbc.sql(bounded ? insertWithoutKeyBounded : insertWithoutKey)
                .paramSource(params)
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    /**
     * The statements' parameters for {@code run}; the other admission statements name some of them too. The optional
     * time and source run go as text for the statement to cast, so that no parameter's type is left unspecified when
     * it is {@code null} (S-OP-13, {@link TextParameters}).
     */
    MapSqlParameterSource parameters(NewRun run) {
        return new MapSqlParameterSource()
                .addValue("id", run.id(), Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", run.taskId(), Types.VARCHAR)
                .addValue("queue", run.queue(), Types.VARCHAR)
                .addValue("payload", run.payloadJson(), Types.VARCHAR)
                .addValue("idempotencyKey", run.idempotencyKey(), Types.VARCHAR)
                .addValue(
                        "idempotencyKeyTtlMs",
                        run.idempotencyKeyTtl() == null
                                ? null
                                : run.idempotencyKeyTtl().toMillis(),
                        Types.BIGINT)
                .addValue("singletonKey", run.singletonKey(), Types.VARCHAR)
                .addValue("concurrencyKey", run.concurrencyKey(), Types.VARCHAR)
                .addValue("maxAttempts", run.maxAttempts(), Types.INTEGER)
                .addValue("runAt", TextParameters.timestamp(run.runAt()), Types.VARCHAR)
                .addValue("delayMs", run.delay() == null ? null : run.delay().toMillis(), Types.BIGINT)
                .addValue("sourceType", run.sourceType(), Types.VARCHAR)
                .addValue("sourceRunId", TextParameters.uuid(run.sourceRunId()), Types.VARCHAR)
                .addValue("traceContext", TraceContextColumn.encode(run.traceContext()), Types.VARCHAR)
                .addValue("priority", run.priority(), Types.SMALLINT)
                .addValue(
                        "debounceKey",
                        run.debounce() == null ? null : run.debounce().key(),
                        Types.VARCHAR)
                .addValue("throttleKey", run.throttleKey(), Types.VARCHAR);
    }
}

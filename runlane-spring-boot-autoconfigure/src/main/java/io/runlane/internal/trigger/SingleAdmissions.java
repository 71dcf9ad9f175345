package io.runlane.internal.trigger;

import io.runlane.Run;
import io.runlane.internal.kernel.GroupCommit;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.StatementParameters;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TraceContextColumn;
import java.sql.Types;
import java.util.Optional;
import org.springframework.dao.support.DataAccessUtils;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

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

    /**
     * The statements' parameters, each with the type it is bound with; {@link StartedAdmissions} adds its worker's.
     * The optional time and source run go as text for the statement to cast, so that no parameter's type is left
     * unspecified when it is {@code null} (S-OP-13, {@link TextParameters}).
     */
    static final StatementParameters PARAMETERS = StatementParameters.builder()
            .add("id", Types.OTHER)
            .add("environment", Types.VARCHAR)
            .add("taskId", Types.VARCHAR)
            .add("queue", Types.VARCHAR)
            .add("payload", Types.VARCHAR)
            .add("idempotencyKey", Types.VARCHAR)
            .add("idempotencyKeyTtlMs", Types.BIGINT)
            .add("singletonKey", Types.VARCHAR)
            .add("concurrencyKey", Types.VARCHAR)
            .add("maxAttempts", Types.INTEGER)
            .add("runAt", Types.VARCHAR)
            .add("delayMs", Types.BIGINT)
            .add("sourceType", Types.VARCHAR)
            .add("sourceRunId", Types.VARCHAR)
            .add("traceContext", Types.VARCHAR)
            .add("priority", Types.SMALLINT)
            .add("debounceKey", Types.VARCHAR)
            .add("throttleKey", Types.VARCHAR)
            .build();

    private final JdbcTemplate jdbc;

    private final String environment;

    private final PositionalStatement admitWithKey;

    private final PositionalStatement admitWithKeyBounded;

    private final PositionalStatement insertWithoutKey;

    private final PositionalStatement insertWithoutKeyBounded;

    SingleAdmissions(JdbcTemplate jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.admitWithKey = statement(sql, ADMIT_WITH_IDEMPOTENCY_KEY, "");
        this.admitWithKeyBounded = statement(sql, ADMIT_WITH_IDEMPOTENCY_KEY, BatchAdmissions.GROUP_LOCK_TIMEOUT);
        this.insertWithoutKey = statement(sql, ADMIT_WITHOUT_IDEMPOTENCY_KEY, "");
        this.insertWithoutKeyBounded =
                statement(sql, ADMIT_WITHOUT_IDEMPOTENCY_KEY, BatchAdmissions.GROUP_LOCK_TIMEOUT);
    }

    private static PositionalStatement statement(SqlTemplate sql, String statement, String fromItem) {
        return PositionalStatement.of(sql.format(statement.formatted(fromItem)), PARAMETERS);
    }

    /** The key's owner ({@code Existing}) or the inserted run ({@code Created}); empty when neither was read. */
    Optional<Admission> admitWithKey(NewRun run, boolean bounded) {
        PositionalStatement statement = bounded ? admitWithKeyBounded : admitWithKey;
        return DataAccessUtils.optionalResult(
                jdbc.query(statement.sql(), statement.setter(values(run)), (rs, rowNum) -> {
                    Run stored = RunRowMapper.INSTANCE.mapRow(rs, rowNum);
                    return rs.getBoolean("created") ? new Admission.Created(stored) : new Admission.Existing(stored);
                }));
    }

    /** The inserted run; empty when a singleton holder refused it. */
    Optional<Run> insertWithoutKey(NewRun run, boolean bounded) {
        PositionalStatement statement = bounded ? insertWithoutKeyBounded : insertWithoutKey;
        return DataAccessUtils.optionalResult(
                jdbc.query(statement.sql(), statement.setter(values(run)), RunRowMapper.INSTANCE));
    }

    /** The values of {@link #PARAMETERS} for {@code run}. */
    StatementParameters.Values values(NewRun run) {
        return fill(PARAMETERS.values(), run);
    }

    /** Sets the values of the parameters of {@link #PARAMETERS} for {@code run} in {@code values}. */
    StatementParameters.Values fill(StatementParameters.Values values, NewRun run) {
        return values.set("id", run.id())
                .set("environment", environment)
                .set("taskId", run.taskId())
                .set("queue", run.queue())
                .set("payload", run.payloadJson())
                .set("idempotencyKey", run.idempotencyKey())
                .set(
                        "idempotencyKeyTtlMs",
                        run.idempotencyKeyTtl() == null
                                ? null
                                : run.idempotencyKeyTtl().toMillis())
                .set("singletonKey", run.singletonKey())
                .set("concurrencyKey", run.concurrencyKey())
                .set("maxAttempts", run.maxAttempts())
                .set("runAt", TextParameters.timestamp(run.runAt()))
                .set("delayMs", run.delay() == null ? null : run.delay().toMillis())
                .set("sourceType", run.sourceType())
                .set("sourceRunId", TextParameters.uuid(run.sourceRunId()))
                .set("traceContext", TraceContextColumn.encode(run.traceContext()))
                .set("priority", run.priority())
                .set(
                        "debounceKey",
                        run.debounce() == null ? null : run.debounce().key())
                .set("throttleKey", run.throttleKey());
    }

    /**
     * The statements' parameters for {@code run}, by name, for the other statements of an admission that name some of
     * them: those that follow when the admission statement settled nothing.
     */
    MapSqlParameterSource parameters(NewRun run) {
        return values(run).asParameterSource();
    }
}

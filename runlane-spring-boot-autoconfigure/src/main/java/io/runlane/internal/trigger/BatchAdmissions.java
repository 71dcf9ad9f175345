package io.runlane.internal.trigger;

import io.runlane.Run;
import io.runlane.internal.kernel.ArrayParameters;
import io.runlane.internal.kernel.GroupCommit;
import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.StatementParameters;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TraceContextColumn;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.postgresql.util.PGobject;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Admits a whole batch in one statement, for {@link RunAdmissions#admitAll}: the batch is passed as arrays, and the
 * statement does for every item what the single admission does for one (S-TR-5): insert the runs in (task,
 * idempotency key, singleton key) order with {@code ON CONFLICT DO NOTHING}, so that both key indexes arbitrate, and
 * read the current owners of the keys whose runs were not inserted. Items the statement could not settle — a singleton
 * owner refused the run, a key's owner committed while the statement ran, or the key's holder's retention has passed
 * — are returned unsettled for the single-item path, in the same transaction. Items sharing an idempotency key must
 * be collapsed by the caller first.
 *
 * <p>No one order of the items takes the entries of both key indexes in one order: two batches whose idempotency
 * keys and singleton keys sort in opposite orders can each wait for the other's uncommitted run, and PostgreSQL then
 * aborts one of them (S-TR-6). Every batch takes the batches' lock ({@link #BATCH_LOCK}) shared, in its statement,
 * before any row; the one that deadlocked is rolled back and admitted again {@linkplain #excludeOtherBatches()
 * alone}, holding that lock exclusively: it waits for the batches in flight to commit, those that come after wait
 * for it, and no other batch can be part of a cycle with it.
 */
final class BatchAdmissions {

    private static final String ADMIT_BATCH = """
            WITH input AS (
                SELECT * FROM unnest(:ids, :taskIds, :queues, :payloads, :idempotencyKeys, :ttls, :singletonKeys,
                                     :concurrencyKeys, :maxAttempts, :runAts, :delays, :sourceTypes, :sourceRunIds,
                                     :traceContexts, :priorities, :throttleKeys)
                    WITH ORDINALITY AS i(id, task_id, queue, payload, idempotency_key, ttl_ms, singleton_key,
                                         concurrency_key, max_attempts, run_at, delay_ms, source_type, source_run_id,
                                         trace_context, priority, throttle_key, ord)%s
            ), inserted_run AS (
                INSERT INTO {schema}.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                           idempotency_key_ttl_ms, singleton_key, concurrency_key, max_attempts,
                                           run_at, created_at, updated_at, source_type, source_run_id,
                                           created_scheduled, trace_context, priority, throttle_key)
                SELECT cast(i.id AS uuid), :environment, i.task_id, i.queue,
                       CASE WHEN due.run_at > statement_timestamp() THEN 'SCHEDULED' ELSE 'QUEUED' END,
                       cast(i.payload AS jsonb), i.idempotency_key, cast(i.ttl_ms AS bigint), i.singleton_key,
                       i.concurrency_key, cast(i.max_attempts AS integer), due.run_at, statement_timestamp(),
                       statement_timestamp(), i.source_type, cast(i.source_run_id AS uuid),
                       due.run_at > statement_timestamp(), cast(i.trace_context AS jsonb),
                       cast(i.priority AS smallint), i.throttle_key
                FROM input i
                CROSS JOIN LATERAL (SELECT coalesce(cast(i.run_at AS timestamptz), statement_timestamp()
                        + coalesce(cast(i.delay_ms AS bigint), 0) * interval '1 millisecond') AS run_at) due
                ORDER BY i.task_id, i.idempotency_key, i.singleton_key
                ON CONFLICT DO NOTHING
                RETURNING *
            ), current_owner AS (
                SELECT i.ord, r.* FROM input i
                JOIN {schema}.runs r
                  ON r.environment = :environment AND r.task_id = i.task_id AND r.idempotency_key = i.idempotency_key
                WHERE NOT EXISTS (SELECT FROM inserted_run n WHERE n.id = cast(i.id AS uuid))
                  AND """ + KeyOwnership.owns("r") + """

            )
            SELECT true AS created, NULL::bigint AS ord, inserted_run.* FROM inserted_run
            UNION ALL
            SELECT false, current_owner.* FROM current_owner
            """;

    /**
     * For {@link GroupCommit}: the statement gives up on any lock after this long, so that a run waiting for another
     * transaction's key never holds up the rest of its group or its lane. {@code set_config(..., true)} lasts until
     * the statement's own transaction ends; it is evaluated before the first input row, so before the insert takes any
     * lock. {@link RunAdmissions} joins it to the single-run statement's row for a group of one.
     */
    static final String GROUP_LOCK_TIMEOUT =
            "\n                CROSS JOIN (SELECT set_config('lock_timeout', '50ms', true)) AS bounded";

    /**
     * For {@link #admit}: the batches' lock, taken shared, evaluated before the first input row as {@link
     * #GROUP_LOCK_TIMEOUT} is, so before the insert takes any lock, and held until the batch's transaction ends.
     */
    private static final String BATCH_LOCK = "\n                CROSS JOIN (SELECT"
            + " pg_advisory_xact_lock_shared(hashtextextended(:batchLock, 0))::text AS batch_lock) AS batches";

    /** For {@link #excludeOtherBatches}: the batches' lock, exclusively. */
    private static final String LOCK_BATCHES = "SELECT pg_advisory_xact_lock(hashtextextended(:batchLock, 0))";

    /** The parameters of {@link #ADMIT_BATCH}: one {@code text[]} per column, which the statement casts. */
    private static final StatementParameters PARAMETERS = StatementParameters.builder()
            .add("environment", Types.VARCHAR)
            .add("batchLock", Types.VARCHAR)
            .add("ids", SqlTypeValue.TYPE_UNKNOWN)
            .add("taskIds", SqlTypeValue.TYPE_UNKNOWN)
            .add("queues", SqlTypeValue.TYPE_UNKNOWN)
            .add("payloads", SqlTypeValue.TYPE_UNKNOWN)
            .add("idempotencyKeys", SqlTypeValue.TYPE_UNKNOWN)
            .add("ttls", SqlTypeValue.TYPE_UNKNOWN)
            .add("singletonKeys", SqlTypeValue.TYPE_UNKNOWN)
            .add("concurrencyKeys", SqlTypeValue.TYPE_UNKNOWN)
            .add("maxAttempts", SqlTypeValue.TYPE_UNKNOWN)
            .add("runAts", SqlTypeValue.TYPE_UNKNOWN)
            .add("delays", SqlTypeValue.TYPE_UNKNOWN)
            .add("sourceTypes", SqlTypeValue.TYPE_UNKNOWN)
            .add("sourceRunIds", SqlTypeValue.TYPE_UNKNOWN)
            .add("traceContexts", SqlTypeValue.TYPE_UNKNOWN)
            .add("priorities", SqlTypeValue.TYPE_UNKNOWN)
            .add("throttleKeys", SqlTypeValue.TYPE_UNKNOWN)
            .build();

    /** The statement's answer for each item, by position; {@code null} where the item is unsettled. */
    record Answers(List<@Nullable Admission> byItem) {}

    private final JdbcClient jdbc;

    private final String environment;

    private final PositionalStatement admitBatch;

    private final PositionalStatement admitGroup;

    /** The batches' lock of this schema and environment, as text for {@code hashtextextended}. */
    private final String batchLock;

    BatchAdmissions(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.admitBatch = PositionalStatement.of(sql.format(ADMIT_BATCH.formatted(BATCH_LOCK)), PARAMETERS);
        this.admitGroup = PositionalStatement.of(sql.format(ADMIT_BATCH.formatted(GROUP_LOCK_TIMEOUT)), PARAMETERS);
        this.batchLock = "runlane-batches:" + sql.schema() + ":" + environment;
    }

    /** Runs the batch statement, which takes the batches' lock shared; the caller holds the transaction. */
    Answers admit(List<NewRun> runs) {
        return admit(admitBatch, runs);
    }

    /**
     * Takes the batches' lock exclusively, for a batch that deadlocked and is admitted again: until its transaction
     * ends, no other batch admits anything. The caller holds the transaction.
     */
    void excludeOtherBatches() {
        jdbc.sql(LOCK_BATCHES)
                .param("batchLock", batchLock, Types.VARCHAR)
                .query()
                .listOfRows();
    }

    /** Runs the batch statement for a {@link GroupCommit} group, alone in auto-commit, with a short lock timeout. */
    Answers admitGroup(List<NewRun> runs) {
        return admit(admitGroup, runs);
    }

    private Answers admit(PositionalStatement statement, List<NewRun> runs) {
        StatementParameters.Values values = PARAMETERS
                .values()
                .set("environment", environment)
                .set("batchLock", batchLock)
                .set("ids", texts(runs, run -> run.id().toString()))
                .set("taskIds", texts(runs, NewRun::taskId))
                .set("queues", texts(runs, NewRun::queue))
                .set("payloads", texts(runs, NewRun::payloadJson))
                .set("idempotencyKeys", texts(runs, NewRun::idempotencyKey))
                .set(
                        "ttls",
                        texts(
                                runs,
                                run -> run.idempotencyKeyTtl() == null
                                        ? null
                                        : Long.toString(run.idempotencyKeyTtl().toMillis())))
                .set("singletonKeys", texts(runs, NewRun::singletonKey))
                .set("concurrencyKeys", texts(runs, NewRun::concurrencyKey))
                .set("maxAttempts", texts(runs, run -> Integer.toString(run.maxAttempts())))
                .set("runAts", texts(runs, run -> TextParameters.timestamp(run.runAt())))
                .set(
                        "delays",
                        texts(
                                runs,
                                run -> run.delay() == null
                                        ? null
                                        : Long.toString(run.delay().toMillis())))
                .set("sourceTypes", texts(runs, NewRun::sourceType))
                .set("sourceRunIds", texts(runs, run -> TextParameters.uuid(run.sourceRunId())))
                .set("traceContexts", texts(runs, run -> TraceContextColumn.encode(run.traceContext())))
                .set("priorities", texts(runs, run -> Integer.toString(run.priority())))
                .set("throttleKeys", texts(runs, NewRun::throttleKey));
        Map<UUID, Integer> positionById = new HashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            positionById.put(runs.get(i).id(), i);
        }
        List<@Nullable Admission> answers = new ArrayList<>();
        runs.forEach(run -> answers.add(null));
        jdbc.sql(statement.sql()).params(statement.arguments(values)).query(rs -> {
            Run stored = RunRowMapper.INSTANCE.mapRow(rs, 0);
            if (rs.getBoolean("created")) {
                answers.set(positionById.get(stored.id()), new Admission.Created(stored));
            } else {
                answers.set((int) rs.getLong("ord") - 1, new Admission.Existing(stored));
            }
        });
        return new Answers(answers);
    }

    /** One {@code text[]} element per run, for the statement to cast. */
    private static PGobject texts(List<NewRun> runs, Function<NewRun, @Nullable String> value) {
        List<@Nullable String> texts = new ArrayList<>(runs.size());
        for (NewRun run : runs) {
            texts.add(value.apply(run));
        }
        return ArrayParameters.texts(texts);
    }
}

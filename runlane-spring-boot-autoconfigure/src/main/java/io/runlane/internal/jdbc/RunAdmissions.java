package io.runlane.internal.jdbc;

import io.runlane.Run;
import io.runlane.RunlaneException;
import io.runlane.SingletonConflictException;
import io.runlane.SingletonConflictPolicy;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Admits new runs: the single place where idempotency (S-IK) and singleton (S-SK) ownership are taken.
 *
 * <p>The algorithm, for a run with an idempotency key, in one statement (one round trip when it creates a run, and a
 * read-only one when the owner is already visible):
 *
 * <ol>
 *   <li>Claim the key with {@code INSERT ... ON CONFLICT DO NOTHING}. A new key is claimed; an existing row is left
 *       untouched and unlocked, so a duplicate writes nothing and commits nothing to disk. PostgreSQL serialises
 *       concurrent claims of one key on its primary key: a waiter finds the first claim once it commits, or claims
 *       the key itself when it rolls back (S-IK-7). Nobody gets a unique-constraint error.
 *   <li>Insert the run only if the key was claimed, with {@code ON CONFLICT DO NOTHING} against the partial unique
 *       index of active singleton owners (S-SK-4). Its creation event is the row itself (S-RL-2; see
 *       {@link RunReads#events}).
 *   <li>Only if the key was not claimed, read its current owner (active, or retained and not yet expired: S-IK-2,
 *       S-IK-3, S-IK-10): that owner is the answer (S-SK-3: before any singleton check).
 * </ol>
 *
 * <p>An empty answer has three rare causes, told apart by one compensating statement: the owner committed while the
 * statement waited, so the snapshot cannot see it (a fresh read finds it); the key was claimed but a singleton owner
 * refused the run (the claim is deleted again; the caller gets {@link Admission.SingletonHeld}); or the key's row
 * belongs to an owner whose retention has passed. The next try then uses the take-over statement: it reads the owner
 * first and claims with {@code ON CONFLICT DO UPDATE}, replacing only a row whose retention has passed (S-IK-10).
 * The first statement cannot do that itself, because {@code DO UPDATE} locks the existing row even when it does not
 * update it, which would make every duplicate a write. The take-over also replaces an orphaned row, whose run was
 * deleted by hand (S-IK-13). Runs with both keys are admitted inside a transaction, joining the caller's one if
 * active (S-TR-3), so that a claim and its compensation commit together; so is any keyed run when the sessions'
 * default isolation is not {@code READ COMMITTED} ({@link ReadCommittedTransactions}). If an owner
 * vanishes between statements the admission is retried.
 */
public final class RunAdmissions {

    private static final int MAX_TRIES = 16;

    /** The new run's row; {@code %s} is what the row is selected from, which decides whether it is inserted. */
    private static final String RUN_VALUES = """
            SELECT :id, :environment, :taskId, :queue,
                   CASE WHEN due.run_at > statement_timestamp() THEN 'SCHEDULED' ELSE 'QUEUED' END,
                   cast(:payload AS jsonb), :idempotencyKey, :idempotencyKeyTtlMs, :singletonKey, :concurrencyKey,
                   :maxAttempts, due.run_at, statement_timestamp(), statement_timestamp(), :sourceType, :sourceRunId,
                   due.run_at > statement_timestamp(), cast(:traceContext AS jsonb)
            FROM %s (SELECT coalesce(:runAt, statement_timestamp() + coalesce(:delayMs, 0) * interval '1 millisecond')
                         AS run_at) due
            """;

    private static final String RUN_COLUMNS = """
            INSERT INTO {schema}.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                       idempotency_key_ttl_ms, singleton_key, concurrency_key, max_attempts,
                                       run_at, created_at, updated_at, source_type, source_run_id, created_scheduled,
                                       trace_context)
            """;

    /** S-SK-4: the conflict target is the partial unique index runs_active_singleton_uq. */
    private static final String ON_SINGLETON_CONFLICT = """
            ON CONFLICT (environment, task_id, singleton_key)
                WHERE singleton_key IS NOT NULL AND finished_at IS NULL AND NOT singleton_released
            DO NOTHING
            RETURNING *
            """;

    private static final String CREATED = """
            SELECT true AS created, inserted_run.* FROM inserted_run
            """;

    private static final String ADMIT_WITHOUT_IDEMPOTENCY_KEY = "WITH inserted_run AS (\n" + RUN_COLUMNS
            + RUN_VALUES.formatted("") + ON_SINGLETON_CONFLICT + ")\n" + CREATED;

    private static final String ADMIT_WITH_IDEMPOTENCY_KEY =
            """
            WITH claimed_key AS (
                INSERT INTO {schema}.idempotency_keys (environment, task_id, idempotency_key, run_id)
                VALUES (:environment, :taskId, :idempotencyKey, :id)
                ON CONFLICT (environment, task_id, idempotency_key) DO NOTHING
                RETURNING run_id
            ), inserted_run AS (
            """ + RUN_COLUMNS + RUN_VALUES.formatted("claimed_key CROSS JOIN") + ON_SINGLETON_CONFLICT
                    + """
            ), current_owner AS (
                SELECT r.* FROM {schema}.idempotency_keys k JOIN {schema}.runs r ON r.id = k.run_id
                WHERE NOT EXISTS (SELECT FROM claimed_key)
                  AND k.environment = :environment AND k.task_id = :taskId AND k.idempotency_key = :idempotencyKey
                  AND (k.retained_until IS NULL OR k.retained_until > statement_timestamp())
            )
            """ + CREATED + """
            UNION ALL
            SELECT false, current_owner.* FROM current_owner
            """;

    /**
     * The take-over statement: retries after an empty answer, and replaces an owner whose retention has passed
     * (S-IK-10) or an orphaned row whose run no longer exists (S-IK-13: deleted by hand). {@code orphan} is read from
     * the statement's snapshot, in which a row's run is always visible with the row (both are written by one
     * statement); the take-over then replaces the row only if, once locked, it still names that missing run. A
     * concurrent trigger that took it over first has changed {@code run_id}, so the waiter updates nothing and finds
     * the new owner on its next try: exactly one run is created. Testing "the run is missing" on the locked row
     * itself would read the runs table with the old snapshot and let every waiter take the row over again.
     */
    private static final String ADMIT_TAKING_OVER_EXPIRED_KEY =
            """
            WITH current_owner AS (
                SELECT r.* FROM {schema}.idempotency_keys k JOIN {schema}.runs r ON r.id = k.run_id
                WHERE k.environment = :environment AND k.task_id = :taskId AND k.idempotency_key = :idempotencyKey
                  AND (k.retained_until IS NULL OR k.retained_until > statement_timestamp())
            ), orphan AS (
                SELECT k.run_id FROM {schema}.idempotency_keys k
                WHERE k.environment = :environment AND k.task_id = :taskId AND k.idempotency_key = :idempotencyKey
                  AND NOT EXISTS (SELECT FROM {schema}.runs r WHERE r.id = k.run_id)
            ), claimed_key AS (
                INSERT INTO {schema}.idempotency_keys AS k (environment, task_id, idempotency_key, run_id)
                SELECT :environment, :taskId, :idempotencyKey, :id WHERE NOT EXISTS (SELECT FROM current_owner)
                ON CONFLICT (environment, task_id, idempotency_key) DO UPDATE
                    SET run_id = excluded.run_id, retained_until = NULL
                    WHERE (k.retained_until IS NOT NULL AND k.retained_until <= statement_timestamp())
                       OR k.run_id = (SELECT run_id FROM orphan)
                RETURNING k.run_id
            ), inserted_run AS (
            """ + RUN_COLUMNS + RUN_VALUES.formatted("claimed_key CROSS JOIN") + ON_SINGLETON_CONFLICT
                    + ")\n" + CREATED + """
            UNION ALL
            SELECT false, current_owner.* FROM current_owner
            """;

    /** Whether the refused run's key claim is its own (S-CP-3 keeps it). */
    private static final String OWN_CLAIM = """
            SELECT count(*) FROM {schema}.idempotency_keys
            WHERE environment = :environment AND task_id = :taskId AND idempotency_key = :idempotencyKey AND run_id = :id
            """;

    /** Undoes a key claim whose run a singleton owner refused; deletes nothing when the claim was someone else's. */
    private static final String RELEASE_UNUSED_CLAIM = """
            DELETE FROM {schema}.idempotency_keys
            WHERE environment = :environment AND task_id = :taskId AND idempotency_key = :idempotencyKey AND run_id = :id
            """;

    private final JdbcClient jdbc;

    private final ReadCommittedTransactions transactions;

    private final RunReads reads;

    private final BatchAdmissions batches;

    private final SingletonConflicts conflicts;

    private final String environment;

    private final String admitWithKey;

    private final String admitTakingOver;

    private final String admitWithoutKey;

    private final String releaseUnusedClaim;

    private final String ownClaim;

    public RunAdmissions(
            JdbcClient jdbc,
            TransactionTemplate transactions,
            RunReads reads,
            SqlTemplate sql,
            String environment,
            SingletonConflicts conflicts) {
        this.jdbc = jdbc;
        this.conflicts = conflicts;
        this.transactions = ReadCommittedTransactions.of(transactions, jdbc);
        this.reads = reads;
        this.batches = new BatchAdmissions(jdbc, sql, environment);
        this.environment = environment;
        this.admitWithKey = sql.format(ADMIT_WITH_IDEMPOTENCY_KEY);
        this.admitTakingOver = sql.format(ADMIT_TAKING_OVER_EXPIRED_KEY);
        this.admitWithoutKey = sql.format(ADMIT_WITHOUT_IDEMPOTENCY_KEY);
        this.releaseUnusedClaim = sql.format(RELEASE_UNUSED_CLAIM);
        this.ownClaim = sql.format(OWN_CLAIM);
    }

    /**
     * Admits one run, in the caller's transaction when one is active. A refusal by a singleton owner is answered by
     * the run's conflict policy ({@link SingletonConflicts}) in the same transaction.
     */
    public Admission admit(NewRun run) {
        boolean bothKeys = run.idempotencyKey() != null && run.singletonKey() != null;
        boolean anyKey = run.idempotencyKey() != null || run.singletonKey() != null;
        boolean needsTransaction = bothKeys || superseding(run) || (anyKey && !transactions.isSessionDefault());
        return retrying(
                run,
                firstTry -> needsTransaction
                        ? inTransaction(() -> resolved(run, admitOnce(run, firstTry)))
                        : resolved(run, admitOnce(run, firstTry)));
    }

    /** The answer after the conflict policy; {@code null} when the key became free and the admission is retried. */
    private @Nullable Admission resolved(NewRun run, @Nullable Admission answer) {
        return answer instanceof Admission.SingletonHeld held ? conflicts.resolve(run, held) : answer;
    }

    /**
     * Admits runs in one transaction and returns their answers in input order (S-TR-5). Items that share an
     * idempotency key collapse onto the first of them, which is admitted; the others return its run. The batch goes
     * to the database as one statement ({@link BatchAdmissions}); the few items it cannot settle are admitted one by
     * one in the same transaction, in lock order. A singleton conflict under {@code FAIL} rolls the whole batch back
     * with {@link SingletonConflictException} (S-TR-6); the other policies act after every other item was admitted,
     * in (task, singleton key) order, so that concurrent batches take holders' locks in one order (S-CP-5).
     */
    public List<Admission> admitAll(List<NewRun> runs) {
        if (runs.isEmpty()) {
            return List.of();
        }
        int[] representative = new int[runs.size()];
        Map<List<String>, Integer> firstWithKey = new HashMap<>();
        List<Integer> distinct = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            NewRun run = runs.get(i);
            int index = i;
            representative[i] = run.idempotencyKey() == null
                    ? i
                    : firstWithKey.computeIfAbsent(List.of(run.taskId(), run.idempotencyKey()), key -> index);
            if (representative[i] == i) {
                distinct.add(i);
            }
        }
        return inTransaction(() -> {
            List<NewRun> batch = distinct.stream().map(runs::get).toList();
            List<Admission> settled = new ArrayList<>(batches.admit(batch).byItem());
            List<Integer> unsettled = IntStream.range(0, batch.size())
                    .filter(position -> settled.get(position) == null)
                    .boxed()
                    .sorted(Comparator.comparing(position -> batch.get(position), LOCK_ORDER))
                    .toList();
            Map<Integer, Admission.@Nullable SingletonHeld> conflicted = new HashMap<>();
            for (int position : unsettled) {
                NewRun run = batch.get(position);
                if (superseding(run)) {
                    conflicted.put(position, null);
                    continue;
                }
                Admission answer = retrying(run, firstTry -> admitOnce(run, firstTry));
                if (answer instanceof Admission.SingletonHeld held) {
                    if (run.onSingletonConflict() == SingletonConflictPolicy.FAIL) {
                        throw new SingletonConflictException(run.taskId(), held.singletonKey(), held.ownerRunId());
                    }
                    conflicted.put(position, held);
                    continue;
                }
                settled.set(position, answer);
            }
            List<Integer> byOwner = conflicted.keySet().stream()
                    .sorted(Comparator.comparing(position -> batch.get(position), OWNER_ORDER))
                    .toList();
            for (int position : byOwner) {
                NewRun run = batch.get(position);
                Admission.SingletonHeld refusal = conflicted.get(position);
                Admission answer = retrying(
                        run, firstTry -> resolved(run, firstTry && refusal != null ? refusal : admitOnce(run, false)));
                if (answer instanceof Admission.SingletonHeld held) {
                    throw new SingletonConflictException(run.taskId(), held.singletonKey(), held.ownerRunId());
                }
                settled.set(position, answer);
            }
            Map<Integer, Admission> byIndex = new HashMap<>();
            for (int position = 0; position < batch.size(); position++) {
                byIndex.put(distinct.get(position), settled.get(position));
            }
            List<Admission> answers = new ArrayList<>(runs.size());
            for (int i = 0; i < runs.size(); i++) {
                Admission answer = byIndex.get(representative[i]);
                answers.add(
                        representative[i] != i && answer instanceof Admission.Created created
                                ? new Admission.Existing(created.run())
                                : answer);
            }
            return answers;
        });
    }

    /**
     * Runs {@code work} in a transaction (the caller's one when active). When the work fails and the rollback fails
     * too, as both do when the connection is cut, the work's failure is thrown, with the rollback's as suppressed:
     * {@link TransactionTemplate} would throw the rollback's failure, which only says the connection is closed.
     */
    private <T> T inTransaction(Supplier<T> work) {
        RuntimeException[] failure = new RuntimeException[1];
        try {
            return transactions.execute(status -> {
                try {
                    return work.get();
                } catch (RuntimeException ex) {
                    failure[0] = ex;
                    throw ex;
                }
            });
        } catch (RuntimeException ex) {
            RuntimeException original = failure[0];
            if (original == null || original == ex) {
                throw ex;
            }
            original.addSuppressed(ex);
            throw original;
        }
    }

    private static final Comparator<NewRun> LOCK_ORDER = Comparator.comparing(NewRun::taskId)
            .thenComparing(NewRun::idempotencyKey, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(NewRun::singletonKey, Comparator.nullsLast(Comparator.naturalOrder()));

    private static final Comparator<NewRun> OWNER_ORDER = Comparator.comparing(NewRun::taskId)
            .thenComparing(NewRun::singletonKey, Comparator.nullsLast(Comparator.naturalOrder()));

    /** Admits with {@code once}, which is told whether it is the first try, until it has an answer. */
    private Admission retrying(NewRun run, Function<Boolean, @Nullable Admission> once) {
        for (int attempt = 1; attempt <= MAX_TRIES; attempt++) {
            Admission answer = once.apply(attempt == 1);
            if (answer != null) {
                return answer;
            }
        }
        throw new RunlaneException(
                "admission_contention",
                "Could not admit a run of task '" + run.taskId() + "': its key owners kept changing");
    }

    /**
     * One admission try; {@code null} when the caller should try again: an owner vanished between statements, or the
     * key's row belongs to an owner whose retention has passed or who no longer exists, which only the take-over
     * statement replaces.
     */
    private @Nullable Admission admitOnce(NewRun run, boolean firstTry) {
        MapSqlParameterSource params = parameters(run);
        if (run.idempotencyKey() == null) {
            Optional<Run> created = jdbc.sql(admitWithoutKey)
                    .paramSource(params)
                    .query(RunRowMapper.INSTANCE)
                    .optional();
            return created.<Admission>map(Admission.Created::new)
                    .orElseGet(() -> superseding(run) ? conflicts.supersede(run, this::insertRun) : singletonHeld(run));
        }
        List<Admission> answers = jdbc.sql(firstTry ? admitWithKey : admitTakingOver)
                .paramSource(params)
                .<Admission>query((rs, rowNum) -> {
                    Run stored = RunRowMapper.INSTANCE.mapRow(rs, rowNum);
                    return rs.getBoolean("created") ? new Admission.Created(stored) : new Admission.Existing(stored);
                })
                .list();
        if (!answers.isEmpty()) {
            return answers.get(0);
        }
        if (superseding(run)) {
            if (jdbc.sql(ownClaim).paramSource(params).query(Long.class).single() == 1) {
                return conflicts.supersede(run, this::insertRun);
            }
        } else if (jdbc.sql(releaseUnusedClaim).paramSource(params).update() == 1) {
            return singletonHeld(run);
        }
        return reads.findCurrentOwner(run.taskId(), run.idempotencyKey())
                .map(Admission.Existing::new)
                .orElse(null);
    }

    /**
     * Under {@code SUPERSEDE} a refused run keeps its idempotency key claim: the same transaction supersedes the
     * holder and then inserts the run under the claim it already has ({@link SingletonConflicts#supersede}), so a
     * concurrent duplicate waits for this transaction instead of racing for a released claim (S-IK-7).
     */
    private static boolean superseding(NewRun run) {
        return run.onSingletonConflict() == SingletonConflictPolicy.SUPERSEDE && run.singletonKey() != null;
    }

    /** Inserts the run's row alone, its key claim (if any) already held; empty when a singleton holder refused it. */
    private Optional<Run> insertRun(NewRun run) {
        return jdbc.sql(admitWithoutKey)
                .paramSource(parameters(run))
                .query(RunRowMapper.INSTANCE)
                .optional();
    }

    private @Nullable Admission singletonHeld(NewRun run) {
        String singletonKey = run.singletonKey();
        if (singletonKey == null) {
            throw new IllegalStateException("Run " + run.id() + " was refused without a singleton key");
        }
        UUID owner = reads.findActiveSingletonOwner(run.taskId(), singletonKey).orElse(null);
        return owner == null ? null : new Admission.SingletonHeld(singletonKey, owner);
    }

    private MapSqlParameterSource parameters(NewRun run) {
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
                .addValue(
                        "runAt",
                        run.runAt() == null ? null : OffsetDateTime.ofInstant(run.runAt(), ZoneOffset.UTC),
                        Types.TIMESTAMP_WITH_TIMEZONE)
                .addValue("delayMs", run.delay() == null ? null : run.delay().toMillis(), Types.BIGINT)
                .addValue("sourceType", run.sourceType(), Types.VARCHAR)
                .addValue("sourceRunId", run.sourceRunId(), Types.OTHER)
                .addValue("traceContext", TraceContextColumn.encode(run.traceContext()), Types.VARCHAR);
    }
}

package io.runlane.internal.trigger;

import io.runlane.DebounceMode;
import io.runlane.RateLimitExceededException;
import io.runlane.Run;
import io.runlane.SingletonConflictException;
import io.runlane.internal.kernel.ReadCommittedTransactions;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TraceContextColumn;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Admits the runs of debounced triggers (S-DB): the first trigger of a debounce key creates the pending run, due one
 * period later; every later one folds into it while it is unclaimed. The partial unique index {@code
 * runs_pending_debounce_uq} names a key's one pending run (a run is pending until its first claim, which bumps its
 * fencing token), and every trigger of a key first takes a transaction-scoped advisory lock on it, so that triggers of
 * one key decide one after another, each seeing the last one's commit.
 *
 * <p>A trigger without an idempotency or singleton key decides in one statement: {@code INSERT ... ON CONFLICT} on
 * that index {@code DO UPDATE} creates the pending run or folds into it (moves its due time, replaces its payload in
 * {@code LATEST} mode, counts the fold and appends a {@code DEBOUNCED} event). A trigger that meets a pending run a
 * worker is claiming at that moment waits for the claim's row lock; PostgreSQL then checks the index again and, the
 * run being claimed, inserts the next pending run instead (S-DB-3, S-DB-4). A trigger with an idempotency or singleton
 * key, whose insert other unique indexes arbitrate too, or of a rate-limited task, whose rate limit must count the
 * pending run's creation (S-RT-3), takes the lock in a statement of its own, in a transaction (the caller's when
 * active): one statement then answers with the key's owner (S-DB-5) or folds into the pending run, and only when it
 * did neither is the pending run admitted like any run ({@link RunAdmissions}), with its singleton conflict policy
 * and under its rate limit. A fold creates no run, so the rate limit neither counts nor refuses it.
 */
final class DebounceAdmissions {

    /** S-DB-1: the pending run's new due time, never earlier than it was, never later than the maximum wait. */
    private static final String FOLDED_DUE = """
            least(greatest(r.run_at, statement_timestamp() + cast(:periodMs AS bigint) * interval '1 millisecond'),
                  coalesce(r.debounce_started_at + cast(:maxWaitMs AS bigint) * interval '1 millisecond', 'infinity'))""";

    /** A fold's changes of the pending run {@code r}; {@code %s} is the folded trigger's payload. */
    private static final String FOLD = """
            run_at = %1$s,
                status = CASE WHEN %1$s > statement_timestamp() THEN 'SCHEDULED' ELSE 'QUEUED' END,
                payload = CASE WHEN :latest THEN %2$s ELSE r.payload END,
                debounce_folds = r.debounce_folds + 1, updated_at = statement_timestamp(),
                last_event_seq = r.last_event_seq + 1""";

    /** S-DB-6: the event of each folded run that {@code %s} selects, naming its new due time. */
    private static final String FOLD_EVENT = """
            INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'DEBOUNCED', status, updated_at, 'runlane',
                       'due at ' || to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                FROM %s""";

    /** The key's lock, for the keyed path and, inside {@link #UPSERT}, as a {@code FROM} item. */
    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(:lockKey, 0))";

    /** For a batch: its debounce keys' locks, in the order given (sorted: every batch takes them in one order). */
    private static final String LOCK_ALL = """
            SELECT pg_advisory_xact_lock(hashtextextended(k.lock_key, 0))::text AS locked
            FROM unnest(cast(:lockKeys AS text[])) AS k(lock_key)
            """;

    /** S-DB-1, S-DB-3, S-DB-4: creates the key's pending run or folds into it; {@code created} tells which. */
    private static final String UPSERT = """
            WITH upserted AS (
                INSERT INTO {schema}.runs AS r (id, environment, task_id, queue, status, payload, concurrency_key,
                                                max_attempts, run_at, created_at, updated_at, source_type,
                                                source_run_id, created_scheduled, trace_context, priority,
                                                debounce_key, debounce_started_at, throttle_key)
                SELECT :id, :environment, :taskId, :queue, 'SCHEDULED', cast(:payload AS jsonb), :concurrencyKey,
                       :maxAttempts, statement_timestamp() + cast(:periodMs AS bigint) * interval '1 millisecond',
                       statement_timestamp(), statement_timestamp(), :sourceType, cast(:sourceRunId AS uuid), true,
                       cast(:traceContext AS jsonb), :priority, :debounceKey, statement_timestamp(), :throttleKey
                FROM (%s) AS serialised
                ON CONFLICT (environment, task_id, debounce_key)
                    WHERE debounce_key IS NOT NULL AND debounce_started_at IS NOT NULL
                      AND status IN ('SCHEDULED', 'QUEUED') AND fencing_token = 0
                DO UPDATE SET %s
                RETURNING r.xmax = 0 AS created, r.*
            ), folded_event AS (
                %s
            )
            SELECT * FROM upserted
            """.formatted(
            LOCK, FOLD.formatted(FOLDED_DUE, "excluded.payload"), FOLD_EVENT.formatted("upserted WHERE NOT created"));

    /**
     * S-DB-5, S-DB-4: after the key's lock, the trigger's idempotency key's owner if it has one, else the key's pending
     * run, folded; nothing when there is neither. {@code %s} reads the owner, or nothing without a key.
     */
    private static final String FOLD_KEYED = """
            WITH current_owner AS (
                %s
            ), folded AS (
                UPDATE {schema}.runs r SET %s
                WHERE r.environment = :environment AND r.task_id = :taskId AND r.debounce_key = :debounceKey
                  AND r.debounce_started_at IS NOT NULL AND r.status IN ('SCHEDULED', 'QUEUED') AND r.fencing_token = 0
                  AND NOT EXISTS (SELECT FROM current_owner)
                RETURNING r.*
            ), folded_event AS (
                %s
            )
            SELECT false AS folded, current_owner.* FROM current_owner
            UNION ALL
            SELECT true, folded.* FROM folded
            """;

    /** No owner to read: the trigger has no idempotency key. */
    private static final String NO_OWNER = "SELECT * FROM {schema}.runs WHERE false";

    private final JdbcClient jdbc;

    private final ReadCommittedTransactions transactions;

    private final String environment;

    private final String schema;

    private final String upsert;

    private final String lock;

    private final String lockAll;

    private final String foldWithOwner;

    private final String foldWithoutOwner;

    private final Function<NewRun, Admission> admitPlain;

    private final Consumer<List<NewRun>> lockRateLimits;

    /**
     * @param admitPlain admits a run like any other, in the transaction that is active ({@link RunAdmissions}); the
     *     keyed path hands it the pending run to create
     */
    DebounceAdmissions(
            JdbcClient jdbc,
            ReadCommittedTransactions transactions,
            SqlTemplate sql,
            String environment,
            Function<NewRun, Admission> admitPlain,
            Consumer<List<NewRun>> lockRateLimits) {
        this.jdbc = jdbc;
        this.lockRateLimits = lockRateLimits;
        this.transactions = transactions;
        this.environment = environment;
        this.schema = sql.schema();
        this.admitPlain = admitPlain;
        this.upsert = sql.format(UPSERT);
        this.lock = sql.format(LOCK);
        this.lockAll = sql.format(LOCK_ALL);
        String foldSet = FOLD.formatted(FOLDED_DUE, "cast(:payload AS jsonb)");
        String foldEvent = FOLD_EVENT.formatted("folded");
        this.foldWithOwner = sql.format(FOLD_KEYED.formatted(KeyOwnership.currentOwner("o"), foldSet, foldEvent));
        this.foldWithoutOwner = sql.format(FOLD_KEYED.formatted(NO_OWNER, foldSet, foldEvent));
    }

    /** Whether any of {@code runs} debounces. */
    static boolean anyDebounced(List<NewRun> runs) {
        for (NewRun run : runs) {
            if (run.debounce() != null) {
                return true;
            }
        }
        return false;
    }

    /** Admits one debounced run: {@code Created}, {@code Debounced}, or an answer of {@link RunAdmissions}. */
    Admission admit(NewRun run) {
        DebounceTerms terms = terms(run);
        if (run.idempotencyKey() != null || run.singletonKey() != null || run.rateLimit() != null) {
            return transactions.execute(status -> admitKeyed(run, terms));
        }
        if (transactions.isSessionDefault() || TransactionSynchronizationManager.isActualTransactionActive()) {
            return upsert(run, terms);
        }
        // Alone under another default isolation, a fold that met a claim would fail to serialise instead of waiting.
        return transactions.execute(status -> upsert(run, terms));
    }

    private Admission upsert(NewRun run, DebounceTerms terms) {
        return jdbc.sql(upsert)
                .paramSource(parameters(run, terms))
                .query((rs, rowNum) -> {
                    Run stored = RunRowMapper.INSTANCE.mapRow(rs, rowNum);
                    return rs.getBoolean("created")
                            ? (Admission) new Admission.Created(stored)
                            : new Admission.Debounced(stored);
                })
                .single();
    }

    /**
     * Admits a batch with debounced items in one transaction (the caller's when active), answers in input order: the
     * debounced items one by one, in (task, debounce key) order and, within one key, in input order, so that items of
     * one key fold in order (S-DB-6); then the other items together, by {@code admitOthers}.
     *
     * <p>Before it admits anything the batch takes the locks of all its debounce keys, in that order, then those of
     * all its rate-limit keys, sorted ({@code lockRateLimits}); the items' own lock statements then find them held. A
     * trigger takes its debounce key's lock before its rate-limit key's too, so every admission takes them in one
     * order: with each item locking its keys in turn, a batch holding a rate-limit key while it waited for its next
     * debounce key deadlocked with a trigger holding that debounce key while it waited for the rate-limit key.
     */
    List<Admission> admitAll(List<NewRun> runs, Function<List<NewRun>, List<Admission>> admitOthers) {
        return transactions.execute(status -> {
            lockAll(runs);
            List<@Nullable Admission> answers = new ArrayList<>();
            runs.forEach(run -> answers.add(null));
            IntStream.range(0, runs.size())
                    .filter(position -> runs.get(position).debounce() != null)
                    .boxed()
                    .sorted(Comparator.comparing(
                                    (Integer position) -> runs.get(position).taskId())
                            .thenComparing(position -> terms(runs.get(position)).key()))
                    .forEach(position -> answers.set(position, admitInBatch(runs.get(position))));
            List<Integer> others = IntStream.range(0, runs.size())
                    .filter(position -> answers.get(position) == null)
                    .boxed()
                    .toList();
            List<Admission> otherAnswers =
                    admitOthers.apply(others.stream().map(runs::get).toList());
            for (int i = 0; i < others.size(); i++) {
                answers.set(others.get(i), otherAnswers.get(i));
            }
            return List.copyOf(answers);
        });
    }

    /** Takes the debounce keys' locks of the batch's debounced items in (task, key) order, then its rate-limit keys. */
    private void lockAll(List<NewRun> runs) {
        List<String> lockKeys = runs.stream()
                .filter(run -> run.debounce() != null)
                .sorted(Comparator.comparing(NewRun::taskId)
                        .thenComparing(run -> terms(run).key()))
                .map(run -> lockKey(run, terms(run)))
                .distinct()
                .toList();
        jdbc.sql(lockAll)
                .param("lockKeys", new SqlArrayValue("text", lockKeys.toArray()))
                .query((rs, rowNum) -> rs.getString("locked"))
                .list();
        lockRateLimits.accept(runs);
    }

    /**
     * S-TR-6, S-RT-2: a singleton conflict under {@code FAIL}, or an item over its rate limit, rolls the whole batch
     * back.
     */
    private Admission admitInBatch(NewRun run) {
        Admission answer = admit(run);
        if (answer instanceof Admission.SingletonHeld held) {
            throw new SingletonConflictException(run.taskId(), held.singletonKey(), held.ownerRunId());
        }
        if (answer instanceof Admission.RateLimited limited) {
            throw new RateLimitExceededException(run.taskId(), limited.rateLimitKey(), limited.retryAfter());
        }
        return answer;
    }

    private Admission admitKeyed(NewRun run, DebounceTerms terms) {
        MapSqlParameterSource params = parameters(run, terms);
        jdbc.sql(lock).paramSource(params).query().listOfRows();
        Optional<Admission> answer = jdbc.sql(run.idempotencyKey() == null ? foldWithoutOwner : foldWithOwner)
                .paramSource(params)
                .<Admission>query((rs, rowNum) -> {
                    Run stored = RunRowMapper.INSTANCE.mapRow(rs, rowNum);
                    return rs.getBoolean("folded") ? new Admission.Debounced(stored) : new Admission.Existing(stored);
                })
                .optional();
        return answer.orElseGet(() -> admitPlain.apply(pendingRun(run, terms)));
    }

    /** The pending run to create: due one period after its trigger (S-DB-1), admitted like a delayed run. */
    private static NewRun pendingRun(NewRun run, DebounceTerms terms) {
        return new NewRun(
                run.id(),
                run.taskId(),
                run.queue(),
                run.payloadJson(),
                run.idempotencyKey(),
                run.idempotencyKeyTtl(),
                run.singletonKey(),
                run.concurrencyKey(),
                run.maxAttempts(),
                null,
                terms.period(),
                run.sourceType(),
                run.sourceRunId(),
                run.onSingletonConflict(),
                run.signalName(),
                run.traceContext(),
                run.priority(),
                terms,
                run.rateLimit(),
                run.throttleKey());
    }

    private MapSqlParameterSource parameters(NewRun run, DebounceTerms terms) {
        Duration maxWait = terms.maxWait();
        return new MapSqlParameterSource()
                .addValue("id", run.id(), Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", run.taskId(), Types.VARCHAR)
                .addValue("queue", run.queue(), Types.VARCHAR)
                .addValue("payload", run.payloadJson(), Types.VARCHAR)
                .addValue("idempotencyKey", run.idempotencyKey(), Types.VARCHAR)
                .addValue("concurrencyKey", run.concurrencyKey(), Types.VARCHAR)
                .addValue("maxAttempts", run.maxAttempts(), Types.INTEGER)
                .addValue("sourceType", run.sourceType(), Types.VARCHAR)
                .addValue("sourceRunId", TextParameters.uuid(run.sourceRunId()), Types.VARCHAR)
                .addValue("traceContext", TraceContextColumn.encode(run.traceContext()), Types.VARCHAR)
                .addValue("priority", run.priority(), Types.SMALLINT)
                .addValue("throttleKey", run.throttleKey(), Types.VARCHAR)
                .addValue("debounceKey", terms.key(), Types.VARCHAR)
                .addValue("periodMs", terms.period().toMillis(), Types.BIGINT)
                .addValue("maxWaitMs", maxWait == null ? null : maxWait.toMillis(), Types.BIGINT)
                .addValue("latest", terms.mode() == DebounceMode.LATEST, Types.BOOLEAN)
                .addValue("lockKey", lockKey(run, terms), Types.VARCHAR);
    }

    private String lockKey(NewRun run, DebounceTerms terms) {
        return "runlane-debounce:" + schema + ":" + environment + ":" + run.taskId() + ":" + terms.key();
    }

    private static DebounceTerms terms(NewRun run) {
        DebounceTerms terms = run.debounce();
        if (terms == null) {
            throw new IllegalStateException("Run " + run.id() + " does not debounce");
        }
        return terms;
    }
}

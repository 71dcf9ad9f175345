package io.runlane.internal.trigger;

import io.runlane.ConfigurationInvalidException;
import io.runlane.RateLimitExceededException;
import io.runlane.Run;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.query.RunReads;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.TransactionStatus;

/**
 * Rate limits at the trigger (S-RT): counts the runs a rate-limited task created per key over a sliding window, in
 * {@code rate_limit_creations}, and refuses a trigger that would create one more than the limit.
 *
 * <p>The database decides, in the admission's transaction: one statement takes a transaction-scoped advisory lock on
 * (schema, environment, task, key), and only then a second statement counts the key's creations in the window ending
 * at its {@code statement_timestamp()}. Under {@code READ COMMITTED} that second statement sees every creation the
 * previous holders of the lock committed, so concurrent triggers of one key, from any number of threads and
 * instances, are counted one after the other and never create more than the limit (S-RT-4). Under the limit the run
 * is admitted as usual and, only if it was really inserted, its creation is recorded in the same transaction (S-RT-3);
 * the lock is held until that transaction ends, the caller's when one is active. At the limit nothing is written:
 * the trigger is answered by its idempotency key's owner if it has one, and otherwise refused with the time the
 * oldest counted creation leaves the window (S-RT-2). A task without a rate limit never comes here.
 */
final class RateLimits {

    /** The key's lock, and the transaction's isolation, which must let the count see what the lock waited for. */
    private static final String LOCK = """
            SELECT pg_advisory_xact_lock(hashtextextended(:lockKey, 0))::text AS locked,
                   current_setting('transaction_isolation') AS isolation
            """;

    /** For a batch: the locks of its keys, in the order given (sorted, so that batches take them in one order). */
    private static final String LOCK_ALL = """
            SELECT pg_advisory_xact_lock(hashtextextended(k.lock_key, 0))::text AS locked,
                   current_setting('transaction_isolation') AS isolation
            FROM unnest(:lockKeys) AS k(lock_key)
            """;

    /**
     * The key's creations in the window, oldest first, at most the limit of them (more cannot change the answer), and
     * when the oldest leaves the window.
     */
    private static final String WINDOW = """
            SELECT count(*) AS counted, min(w.created_at) + :periodMs * interval '1 millisecond' AS retry_after,
                   statement_timestamp() + :periodMs * interval '1 millisecond' AS empty_retry_after
            FROM (SELECT c.created_at FROM {schema}.rate_limit_creations c
                  WHERE c.environment = :environment AND c.task_id = :taskId AND c.rate_limit_key = :rateLimitKey
                    AND c.created_at > statement_timestamp() - :periodMs * interval '1 millisecond'
                  ORDER BY c.created_at
                  LIMIT :limit) w
            """;

    /**
     * Records a creation, and deletes (a bounded number of) the key's creations that have left the window: the
     * admission prunes its own key under its lock, so an active key's rows stay about as many as its limit.
     */
    private static final String RECORD = """
            WITH expired AS (
                DELETE FROM {schema}.rate_limit_creations d
                WHERE d.ctid IN (SELECT e.ctid FROM {schema}.rate_limit_creations e
                                 WHERE e.environment = :environment AND e.task_id = :taskId
                                   AND e.rate_limit_key = :rateLimitKey
                                   AND e.created_at <= statement_timestamp() - :periodMs * interval '1 millisecond'
                                 ORDER BY e.created_at
                                 LIMIT 100)
            )
            INSERT INTO {schema}.rate_limit_creations (environment, task_id, rate_limit_key, created_at, run_id)
            VALUES (:environment, :taskId, :rateLimitKey, cast(:createdAt AS timestamptz), cast(:runId AS uuid))
            """;

    /** Records a batch's creations. */
    private static final String RECORD_ALL = """
            INSERT INTO {schema}.rate_limit_creations (environment, task_id, rate_limit_key, created_at, run_id)
            SELECT :environment, c.task_id, c.rate_limit_key, cast(c.created_at AS timestamptz), cast(c.run_id AS uuid)
            FROM unnest(:taskIds, :rateLimitKeys, :createdAts, :runIds) AS c(task_id, rate_limit_key, created_at, run_id)
            """;

    private final JdbcClient jdbc;

    private final RunReads reads;

    private final String environment;

    private final String lockPrefix;

    private final String lock;

    private final String lockAll;

    private final String window;

    private final String record;

    private final String recordAll;

    RateLimits(JdbcClient jdbc, SqlTemplate sql, String environment, RunReads reads) {
        this.jdbc = jdbc;
        this.reads = reads;
        this.environment = environment;
        this.lockPrefix = "runlane-rate-limit:" + sql.schema() + ":" + environment + ":";
        this.lock = sql.format(LOCK);
        this.lockAll = sql.format(LOCK_ALL);
        this.window = sql.format(WINDOW);
        this.record = sql.format(RECORD);
        this.recordAll = sql.format(RECORD_ALL);
    }

    /**
     * Admits a rate-limited run with {@code admission}, in the transaction {@code status} holds: counts its key's
     * window under the key's lock; under the limit admits it and records the creation if the run was inserted; at the
     * limit answers {@link Admission.RateLimited} and writes nothing, unless the trigger creates nothing anyway (an
     * idempotency key's owner, a singleton holder the policy returns or signals), whose answer it gives.
     */
    Admission admit(TransactionStatus status, NewRun run, Supplier<Admission> admission) {
        RateLimitedKey limit = limitOf(run);
        lock(List.of(lockKey(run.taskId(), limit)));
        Window counted = window(run.taskId(), limit);
        if (counted.counted() < limit.policy().limit()) {
            Admission answer = admission.get();
            Run created = created(answer);
            if (created != null) {
                record(run.taskId(), limit, created);
            }
            return answer;
        }
        return atLimit(status, run, new Admission.RateLimited(limit.key(), counted.retryAfter()), admission);
    }

    /**
     * At the limit. Without a singleton key only the idempotency key's owner can answer without a creation, so it is
     * looked up and nothing else runs: a refusal leaves no row behind, not even a dead one. With a singleton key the
     * conflict policy may answer without creating: the admission runs after a savepoint and is rolled back to it when
     * it created the run. Without savepoints (a JTA transaction manager) such a trigger is refused.
     */
    private Admission atLimit(
            TransactionStatus status, NewRun run, Admission.RateLimited refusal, Supplier<Admission> admission) {
        Object savepoint = run.singletonKey() == null ? null : savepoint(status);
        if (savepoint == null) {
            String key = run.idempotencyKey();
            return key == null
                    ? refusal
                    : reads.findCurrentOwner(run.taskId(), key)
                            .<Admission>map(Admission.Existing::new)
                            .orElse(refusal);
        }
        Admission answer = admission.get();
        if (created(answer) != null) {
            status.rollbackToSavepoint(savepoint);
            status.releaseSavepoint(savepoint);
            return refusal;
        }
        status.releaseSavepoint(savepoint);
        return answer;
    }

    /** Locks the rate-limited keys of a batch, in one order, and counts their windows; nothing for a batch without. */
    BatchWindows lockBatch(List<NewRun> batch) {
        Map<String, Slot> slots = slots(batch);
        if (slots.isEmpty()) {
            return new BatchWindows(Map.of());
        }
        List<String> lockKeys = slots.keySet().stream().sorted().toList();
        lock(lockKeys);
        Map<String, Window> windows = new HashMap<>();
        for (String lockKey : lockKeys) {
            Slot slot = slots.get(lockKey);
            windows.put(lockKey, window(slot.taskId(), slot.limit()));
        }
        return new BatchWindows(windows);
    }

    /**
     * Takes the locks of the rate-limit keys of a batch's items, sorted, without counting their windows: a batch with
     * debounced items takes them once it holds its debounce keys' locks, before any item locks its own keys
     * (S-DB-6, S-RT-4). The isolation is checked where an item locks its key again to count it: a batch whose items
     * all fold counts nothing, and needs no {@code READ COMMITTED}, as a fold alone does not.
     */
    void lockAll(List<NewRun> batch) {
        Map<String, Slot> slots = slots(batch);
        if (!slots.isEmpty()) {
            acquire(slots.keySet().stream().sorted().toList());
        }
    }

    private Map<String, Slot> slots(List<NewRun> batch) {
        Map<String, Slot> slots = new LinkedHashMap<>();
        for (NewRun run : batch) {
            RateLimitedKey limit = run.rateLimit();
            if (limit != null) {
                slots.computeIfAbsent(lockKey(run.taskId(), limit), lockKey -> new Slot(run.taskId(), limit));
            }
        }
        return slots;
    }

    /**
     * Checks a batch's answers against the windows counted before it (S-RT-2): the created items of each key are
     * counted in input order, and the first that exceeds its key's limit fails the whole batch, whose transaction then
     * rolls back; otherwise the creations are recorded.
     */
    void checkAndRecordBatch(BatchWindows windows, List<NewRun> batch, List<Admission> answers) {
        if (windows.byLockKey().isEmpty()) {
            return;
        }
        Map<String, Integer> counts = new HashMap<>();
        List<NewRun> limited = new ArrayList<>();
        List<Run> created = new ArrayList<>();
        for (int position = 0; position < batch.size(); position++) {
            NewRun run = batch.get(position);
            RateLimitedKey limit = run.rateLimit();
            Run inserted = created(answers.get(position));
            if (limit == null || inserted == null) {
                continue;
            }
            String lockKey = lockKey(run.taskId(), limit);
            Window window = windows.byLockKey().get(lockKey);
            int count = counts.merge(lockKey, 1, Integer::sum) + (int) window.counted();
            if (count > limit.policy().limit()) {
                throw new RateLimitExceededException(run.taskId(), limit.key(), window.retryAfter());
            }
            limited.add(run);
            created.add(inserted);
        }
        if (!limited.isEmpty()) {
            recordAll(limited, created);
        }
    }

    /** The windows a batch's keys had when it locked them, by lock key. */
    record BatchWindows(Map<String, Window> byLockKey) {}

    private record Slot(String taskId, RateLimitedKey limit) {}

    /**
     * A key's window: how many creations it counts (at most the limit) and when a trigger has room again: when the
     * oldest leaves the window, or for an empty window (a batch larger than the limit) one period from now.
     */
    record Window(long counted, Instant retryAfter) {}

    private void lock(List<String> lockKeys) {
        String isolation = acquire(lockKeys);
        if (!"read committed".equals(isolation)) {
            throw new ConfigurationInvalidException(
                    "isolation",
                    "a trigger of a rate-limited task needs a READ COMMITTED transaction, but the caller's is "
                            + isolation + " (S-RT-4, " + Guarantees.link("S-RT-4") + ")");
        }
    }

    /** Takes the locks, in the order given; returns the transaction's isolation. */
    private String acquire(List<String> lockKeys) {
        List<String> isolations = lockKeys.size() == 1
                ? jdbc.sql(lock)
                        .param("lockKey", lockKeys.get(0), Types.VARCHAR)
                        .query((rs, rowNum) -> rs.getString("isolation"))
                        .list()
                : jdbc.sql(lockAll)
                        .param("lockKeys", new SqlArrayValue("text", lockKeys.toArray()))
                        .query((rs, rowNum) -> rs.getString("isolation"))
                        .list();
        return isolations.get(0);
    }

    private Window window(String taskId, RateLimitedKey limit) {
        return jdbc.sql(window)
                .paramSource(parameters(taskId, limit)
                        .addValue("limit", limit.policy().limit(), Types.INTEGER))
                .query((rs, rowNum) -> {
                    Timestamp retryAfter = rs.getTimestamp("retry_after");
                    return new Window(
                            rs.getLong("counted"),
                            (retryAfter != null ? retryAfter : rs.getTimestamp("empty_retry_after")).toInstant());
                })
                .single();
    }

    private void record(String taskId, RateLimitedKey limit, Run created) {
        jdbc.sql(record)
                .paramSource(parameters(taskId, limit)
                        .addValue("createdAt", TextParameters.timestamp(created.createdAt()), Types.VARCHAR)
                        .addValue("runId", created.id().toString(), Types.VARCHAR))
                .update();
    }

    private void recordAll(List<NewRun> runs, List<Run> created) {
        jdbc.sql(recordAll)
                .param("environment", environment, Types.VARCHAR)
                .param("taskIds", texts(runs.stream().map(NewRun::taskId).toList()))
                .param(
                        "rateLimitKeys",
                        texts(runs.stream().map(run -> limitOf(run).storedKey()).toList()))
                .param(
                        "createdAts",
                        texts(created.stream()
                                .map(run -> TextParameters.timestamp(run.createdAt()))
                                .toList()))
                .param(
                        "runIds",
                        texts(created.stream().map(run -> run.id().toString()).toList()))
                .update();
    }

    private MapSqlParameterSource parameters(String taskId, RateLimitedKey limit) {
        return new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", taskId, Types.VARCHAR)
                .addValue("rateLimitKey", limit.storedKey(), Types.VARCHAR)
                .addValue("periodMs", limit.policy().period().toMillis(), Types.BIGINT);
    }

    /** Keys have no {@code :} (S-ID-1), so a task and key compose a lock key no other pair has. */
    private String lockKey(String taskId, RateLimitedKey limit) {
        return lockPrefix + taskId + ":" + limit.storedKey();
    }

    private static RateLimitedKey limitOf(NewRun run) {
        RateLimitedKey limit = run.rateLimit();
        if (limit == null) {
            throw new IllegalStateException("Run " + run.id() + " has no rate limit");
        }
        return limit;
    }

    /** The run an answer inserted, or {@code null} when it created nothing. */
    static @Nullable Run created(@Nullable Admission answer) {
        if (answer instanceof Admission.Created created) {
            return created.run();
        }
        if (answer instanceof Admission.Superseded superseded) {
            return superseded.run();
        }
        return null;
    }

    private static @Nullable Object savepoint(TransactionStatus status) {
        try {
            return status.createSavepoint();
        } catch (NestedTransactionNotSupportedException ex) {
            return null;
        }
    }

    private static SqlArrayValue texts(List<String> values) {
        return new SqlArrayValue("text", values.toArray());
    }
}

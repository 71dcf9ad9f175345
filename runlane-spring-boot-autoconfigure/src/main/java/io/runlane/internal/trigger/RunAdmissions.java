package io.runlane.internal.trigger;

import io.runlane.Run;
import io.runlane.RunlaneException;
import io.runlane.SingletonConflictException;
import io.runlane.SingletonConflictPolicy;
import io.runlane.internal.kernel.GroupCommit;
import io.runlane.internal.kernel.LocalStarts;
import io.runlane.internal.kernel.ReadCommittedTransactions;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.query.RunReads;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Admits new runs: the single place where idempotency (S-IK) and singleton (S-SK) ownership are taken.
 *
 * <p>The run row is its own key claim: the runs table carries two partial unique indexes, one over the runs that hold
 * an idempotency key ({@link KeyOwnership}) and one over the active holders of a singleton key. A run is admitted by
 * one statement ({@link SingleAdmissions}), in one round trip, whichever keys it has:
 *
 * <ol>
 *   <li>Read the key's current owner (active, or retained and not yet expired: S-IK-2, S-IK-3, S-IK-10): if there is
 *       one, it is the answer (S-SK-3: before any singleton check), and a duplicate forms no row, writes nothing and
 *       commits nothing to disk.
 *   <li>Only if there is none, {@code INSERT ... ON CONFLICT DO NOTHING} without a conflict target, so that both
 *       indexes arbitrate. A free key is taken by the insert itself. PostgreSQL serialises concurrent inserts of one
 *       key on the index: a waiter finds the first run once it commits, or inserts its own when it rolls back
 *       (S-IK-7). Nobody gets a unique-constraint error.
 * </ol>
 *
 * <p>An empty answer has three rare causes, told apart by a fresh read: the owner committed while the statement
 * ran (the insert waited for it), so the statement's snapshot cannot see it (the fresh read finds it); the key's
 * holder is a run whose retention has passed, which is released ({@code idempotency_key_released}) and the admission
 * tried again (S-IK-10);
 * or a singleton owner refused the run, which the run's conflict policy answers ({@link SingletonConflicts}). Nothing
 * needs undoing in any of them, so a run with both keys needs no transaction of its own; a superseding run does, and
 * so does any keyed run when the sessions' default isolation is not {@code READ COMMITTED} ({@link
 * ReadCommittedTransactions}); they join the caller's transaction if active (S-TR-3). If an owner vanishes between
 * statements the admission is retried.
 */
public final class RunAdmissions {

    private static final int MAX_TRIES = 16;

    /** S-IK-10: a holder whose retention has passed owns nothing; releasing it lets the next insert take the key. */
    private static final String RELEASE_EXPIRED_HOLDER = "UPDATE {schema}.runs r SET idempotency_key_released = true\n"
            + "WHERE " + KeyOwnership.keyIs("r") + "\n AND " + KeyOwnership.holdsExpired("r");

    private final JdbcClient jdbc;

    private final ReadCommittedTransactions transactions;

    private final RunReads reads;

    private final BatchAdmissions batches;

    private final SingletonConflicts conflicts;

    private final SingleAdmissions singles;

    private final String releaseExpiredHolder;

    private final DebounceAdmissions debounces;

    /**
     * How the triggers' groups form (S-TR-13): at most 64 runs per statement; two groups in flight at once, since with
     * one every statement waited for the previous group's commit and the database had a core idle meanwhile (with two,
     * 16 triggering threads admitted 12,000 runs/s instead of 9,400, the benchmarks' {@code trigger, new runs}, and
     * fewer threads were no slower); and four while no more than four callers are admitting, since with two lanes 4
     * triggering threads admitted 2,600-2,800 runs/s, two of them always waiting for a lane to group with one other,
     * and with four lanes 3,100-3,450 (with many callers four lanes made smaller groups and were slower: 16 threads
     * 5,300-7,100 against 7,600-8,500 runs/s).
     */
    static final GroupCommit.Limits GROUPS = new GroupCommit.Limits(64, 2, 4);

    private final GroupCommit<NewRun, Admission> groups = new GroupCommit<>(GROUPS, this::admitGroup, this::admitAlone);

    private final CreatedShare createdShare = new CreatedShare();

    private final RateLimits rateLimits;

    private final StartedAdmissions starts;

    private final LocalStarts localStarts;

    /** The data source of {@code jdbc}: a caller's transaction holding its connection commits what it writes. */
    private final DataSource dataSource;

    public RunAdmissions(
            DataSource dataSource,
            JdbcClient jdbc,
            TransactionTemplate transactions,
            RunReads reads,
            SqlTemplate sql,
            String environment,
            SingletonConflicts conflicts,
            LocalStarts localStarts) {
        this.jdbc = jdbc;
        this.conflicts = conflicts;
        this.transactions = ReadCommittedTransactions.of(transactions, jdbc);
        this.reads = reads;
        this.batches = new BatchAdmissions(jdbc, sql, environment);
        JdbcTemplate statements = new JdbcTemplate(dataSource);
        this.singles = new SingleAdmissions(statements, sql, environment);
        this.releaseExpiredHolder = sql.format(RELEASE_EXPIRED_HOLDER);
        this.rateLimits = new RateLimits(jdbc, sql, environment, reads);
        this.debounces = new DebounceAdmissions(
                jdbc, this.transactions, sql, environment, this::admitPending, rateLimits::lockAll);
        this.starts = new StartedAdmissions(jdbc, statements, sql, singles);
        this.localStarts = localStarts;
        this.dataSource = dataSource;
    }

    /**
     * Admits one run, in the caller's transaction when one is active. A refusal by a singleton owner is answered by
     * the run's conflict policy ({@link SingletonConflicts}) in the same transaction. A run outside any transaction
     * that needs none of its own is admitted with whatever runs other threads admit at the same moment, in one
     * statement and one commit ({@link GroupCommit}), while most recent triggers create runs ({@link CreatedShare});
     * while most return an existing run, its key's owner is looked up first. A run of a rate-limited task is
     * admitted alone, in a transaction (the caller's when active), under its rate-limit key's lock ({@link
     * RateLimits}); the answer {@link Admission.RateLimited} refuses it and wrote nothing.
     */
    public Admission admit(NewRun run) {
        if (run.debounce() != null) {
            return debounces.admit(run);
        }
        if (run.rateLimit() != null) {
            return admitRateLimited(run);
        }
        if (!groupable(run)) {
            return startableInCallersTransaction(run) ? admitStartingAfterCommit(run) : admitAlone(run);
        }
        Admission answer = createdShare.worthGrouping() ? groups.write(run) : ownerFirst(run);
        createdShare.record(answer instanceof Admission.Created || answer instanceof Admission.Started);
        return answer;
    }

    /** A run of a rate-limited task: alone, in a transaction, under its rate-limit key's lock ({@link RateLimits}). */
    private Admission admitRateLimited(NewRun run) {
        return inTransaction(status ->
                rateLimits.admit(status, run, () -> retrying(run, firstTry -> resolved(run, admitOnce(run)))));
    }

    /**
     * The admission of a debounced trigger that creates its key's pending run: a rate limit counts the creation
     * (a fold counts nothing, S-RT-3).
     */
    private Admission admitPending(NewRun run) {
        return run.rateLimit() != null ? admitRateLimited(run) : admitAlone(run);
    }

    /**
     * While most recent triggers returned an existing run, a keyed trigger reads its key's owner first ({@link
     * RunReads#findCurrentOwner}, a lookup in the owners' index): a duplicate is answered by that lookup, and only a
     * key without an owner takes the admission statement, which prepares the runs table and its indexes for an insert
     * even when it inserts nothing, in a second round trip.
     */
    private Admission ownerFirst(NewRun run) {
        String key = run.idempotencyKey();
        Optional<Run> owner = key == null ? Optional.empty() : reads.findCurrentOwner(run.taskId(), key);
        return owner.<Admission>map(Admission.Existing::new).orElseGet(() -> admitStartingOrAlone(run));
    }

    /**
     * A groupable run admitted alone: stored claimed by a free slot of the local worker when one takes it (S-EX-36),
     * else, or when that statement settled nothing, as any run alone.
     */
    private Admission admitStartingOrAlone(NewRun run) {
        LocalStarts.Reservation slot = startableNow(run) ? localStarts.reserve(run.taskId(), run.queue()) : null;
        if (slot != null) {
            Optional<Admission> started = starts.admit(run, slot, false);
            if (started.isPresent()) {
                return started.get();
            }
        }
        return admitAlone(run);
    }

    private boolean groupable(NewRun run) {
        return !superseding(run)
                && !TransactionSynchronizationManager.isSynchronizationActive()
                && !TransactionSynchronizationManager.isActualTransactionActive()
                && transactions.isSessionDefault();
    }

    /**
     * A group's statement, in auto-commit: the answer for each run, or {@code null} where its caller must admit it
     * alone. Runs sharing an idempotency key collapse onto the first of them, as in {@link #admitAll}.
     */
    private List<@Nullable Admission> admitGroup(List<NewRun> runs) {
        if (runs.size() == 1) {
            return Collections.singletonList(admitBounded(runs.get(0)));
        }
        SharedKeys keys = SharedKeys.of(runs);
        return keys.answers(batches.admitGroup(keys.distinct()).byItem());
    }

    /**
     * A group of one: the single-run statement, which costs the database less than the group statement does for one
     * run, with the group's lock bound; {@code null} when it did not settle the run. A due run that a free slot of the
     * local worker can take is stored claimed by it and started after this one commit (S-EX-36, {@link
     * StartedAdmissions}).
     */
    private @Nullable Admission admitBounded(NewRun run) {
        LocalStarts.Reservation slot = startableNow(run) ? localStarts.reserve(run.taskId(), run.queue()) : null;
        if (slot != null) {
            return starts.admit(run, slot, true).orElse(null);
        }
        if (run.idempotencyKey() == null) {
            return singles.insertWithoutKey(run, true)
                    .<Admission>map(Admission.Created::new)
                    .orElse(null);
        }
        return singles.admitWithKey(run, true).orElse(null);
    }

    /**
     * Whether a run triggered in the caller's transaction may be stored claimed by a free slot of the local worker and
     * handed to it after that transaction commits (S-EX-36): the transaction holds this engine's connection (so the
     * run commits with it), reads committed data and may write, and the run needs no transaction of its own.
     */
    private boolean startableInCallersTransaction(NewRun run) {
        return startableNow(run)
                && !superseding(run)
                && TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive()
                && !TransactionSynchronizationManager.isCurrentTransactionReadOnly()
                && TransactionSynchronizationManager.getCurrentTransactionIsolationLevel() == null
                && transactions.isSessionDefault()
                && TransactionSynchronizationManager.hasResource(dataSource);
    }

    /** A run in the caller's transaction, stored claimed by a free local slot when one takes it (S-EX-36). */
    private Admission admitStartingAfterCommit(NewRun run) {
        LocalStarts.Reservation slot = localStarts.reserve(run.taskId(), run.queue());
        if (slot != null) {
            Optional<Admission> started = starts.admitInTransaction(run, slot);
            if (started.isPresent()) {
                return started.get();
            }
        }
        return admitAlone(run);
    }

    /**
     * Whether the run is due at once and claimable by the worker's plain claim, so that a slot may start it on
     * its trigger's commit (S-EX-36): not scheduled for later, not throttled. Its task and queue are for the worker
     * to judge ({@link LocalStarts.Starter#reserve}).
     */
    private static boolean startableNow(NewRun run) {
        return run.runAt() == null
                && run.delay() == null
                && run.throttleKey() == null
                && run.debounce() == null
                && run.rateLimit() == null;
    }

    private Admission admitAlone(NewRun run) {
        boolean anyKey = run.idempotencyKey() != null || run.singletonKey() != null;
        boolean needsTransaction = superseding(run) || (anyKey && !transactions.isSessionDefault());
        return retrying(
                run,
                firstTry -> needsTransaction
                        ? inTransaction(() -> resolved(run, admitOnce(run)))
                        : resolved(run, admitOnce(run)));
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
     * with {@link SingletonConflictException} (S-TR-6), and so does one item over its task's rate limit with {@link
     * io.runlane.RateLimitExceededException} (the batch first locks and counts its rate-limited keys, {@link
     * RateLimits#lockBatch}); the other policies act after every other item was admitted,
     * in (task, singleton key) order, so that concurrent batches take holders' locks in one order (S-CP-5).
     *
     * <p>A batch that deadlocked with another (their keys sort in crossing orders) is rolled back, its own
     * transaction entirely, or a caller's to a savepoint set before the batch, and admitted again while no other batch
     * admits anything ({@link BatchAdmissions#excludeOtherBatches}): it cannot deadlock with another batch then, and
     * later batches wait for it, so it is not starved (S-TR-6).
     */
    public List<Admission> admitAll(List<NewRun> runs) {
        return DebounceAdmissions.anyDebounced(runs)
                ? debounces.admitAll(runs, this::admitAllUndebounced)
                : admitAllUndebounced(runs);
    }

    /** {@link #admitAll} for runs none of which debounces (S-DB-6: debounced items are admitted by {@link DebounceAdmissions}). */
    private List<Admission> admitAllUndebounced(List<NewRun> runs) {
        if (runs.isEmpty()) {
            return List.of();
        }
        SharedKeys keys = SharedKeys.of(runs);
        List<NewRun> batch = keys.distinct();
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            return keys.answers(inTransaction(status -> admitBatchInCallersTransaction(status, batch)));
        }
        try {
            return keys.answers(inTransaction(status -> admitBatch(batch)));
        } catch (RuntimeException ex) {
            if (!deadlocked(ex)) {
                throw ex;
            }
            return keys.answers(inTransaction(status -> admitBatchAlone(batch)));
        }
    }

    /**
     * A batch in a caller's transaction, which a deadlock must not abort: the batch rolls back to a savepoint set
     * before it and is admitted again alone. Without savepoints (a JTA transaction manager) the deadlock fails the
     * caller's transaction, as any statement's error does.
     */
    private List<@Nullable Admission> admitBatchInCallersTransaction(TransactionStatus status, List<NewRun> batch) {
        Object savepoint = savepoint(status);
        if (savepoint == null) {
            return admitBatch(batch);
        }
        try {
            List<@Nullable Admission> admitted = admitBatch(batch);
            status.releaseSavepoint(savepoint);
            return admitted;
        } catch (RuntimeException ex) {
            if (!deadlocked(ex)) {
                throw ex;
            }
            status.rollbackToSavepoint(savepoint);
            status.releaseSavepoint(savepoint);
            return admitBatchAlone(batch);
        }
    }

    /** A batch again, after a deadlock, while no other batch admits anything. */
    private List<@Nullable Admission> admitBatchAlone(List<NewRun> batch) {
        batches.excludeOtherBatches();
        return admitBatch(batch);
    }

    /** The answers of the distinct runs of a batch, in the transaction the caller holds. */
    private List<@Nullable Admission> admitBatch(List<NewRun> batch) {
        RateLimits.BatchWindows windows = rateLimits.lockBatch(batch);
        List<@Nullable Admission> settled = settle(batch);
        rateLimits.checkAndRecordBatch(windows, batch, settled);
        return settled;
    }

    private List<@Nullable Admission> settle(List<NewRun> batch) {
        List<@Nullable Admission> settled = new ArrayList<>(batches.admit(batch).byItem());
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
            Admission answer = retrying(run, firstTry -> admitOnce(run));
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
            Admission answer =
                    retrying(run, firstTry -> resolved(run, firstTry && refusal != null ? refusal : admitOnce(run)));
            if (answer instanceof Admission.SingletonHeld held) {
                throw new SingletonConflictException(run.taskId(), held.singletonKey(), held.ownerRunId());
            }
            settled.set(position, answer);
        }
        return settled;
    }

    /** A savepoint in the caller's transaction; {@code null} when its transaction manager cannot set one (JTA). */
    private static @Nullable Object savepoint(TransactionStatus status) {
        try {
            return status.createSavepoint();
        } catch (NestedTransactionNotSupportedException ex) {
            return null;
        }
    }

    /** Whether PostgreSQL chose the statement as a deadlock's victim (SQLState 40P01). */
    private static boolean deadlocked(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code work} in a transaction (the caller's one when active). When the work fails and the rollback fails
     * too, as both do when the connection is cut, the work's failure is thrown, with the rollback's as suppressed:
     * {@link TransactionTemplate} would throw the rollback's failure, which only says the connection is closed.
     */
    private <T> T inTransaction(Supplier<T> work) {
        return inTransaction(status -> work.get());
    }

    private <T> T inTransaction(TransactionCallback<T> work) {
        RuntimeException[] failure = new RuntimeException[1];
        try {
            return transactions.execute(status -> {
                try {
                    return work.doInTransaction(status);
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
     * key's holder was a run whose retention had passed and has just been released.
     */
    private @Nullable Admission admitOnce(NewRun run) {
        if (run.idempotencyKey() == null) {
            Optional<Run> created = singles.insertWithoutKey(run, false);
            return created.<Admission>map(Admission.Created::new)
                    .orElseGet(() -> superseding(run) ? conflicts.supersede(run, this::insertRun) : singletonHeld(run));
        }
        Optional<Admission> answer = singles.admitWithKey(run, false);
        if (answer.isPresent()) {
            return answer.get();
        }
        MapSqlParameterSource params = singles.parameters(run);
        if (jdbc.sql(releaseExpiredHolder).paramSource(params).update() > 0) {
            return null;
        }
        Optional<Admission> refusal = conflicts.keyOwnerOrHolder(
                params, holder -> new Admission.SingletonHeld(holder.singletonKey(), holder.id()));
        if (refusal.isEmpty() || refusal.get() instanceof Admission.Existing) {
            return refusal.orElse(null);
        }
        return superseding(run) ? conflicts.supersede(run, this::insertRun) : refusal.get();
    }

    /**
     * Under {@code SUPERSEDE} the refused run is inserted after its singleton holder was superseded, in the same
     * transaction ({@link SingletonConflicts#supersede}). A concurrent duplicate of its idempotency key waits for
     * that transaction: its insert meets the holder's row, which this transaction has updated (S-IK-7).
     */
    private static boolean superseding(NewRun run) {
        return run.onSingletonConflict() == SingletonConflictPolicy.SUPERSEDE && run.singletonKey() != null;
    }

    /**
     * Admits the superseding run once its holder was released: {@code Created}, or {@code Existing} when another run
     * of its idempotency key owns the key by now (the trigger is a duplicate of that run); empty when a singleton
     * holder refused it, or a run of its idempotency key committed while the statement ran (the admission then starts
     * over and finds that run).
     */
    private Optional<Admission> insertRun(NewRun run) {
        if (run.idempotencyKey() == null) {
            return singles.insertWithoutKey(run, false).map(Admission.Created::new);
        }
        return singles.admitWithKey(run, false);
    }

    private @Nullable Admission singletonHeld(NewRun run) {
        String singletonKey = run.singletonKey();
        if (singletonKey == null) {
            throw new IllegalStateException("Run " + run.id() + " was refused without a singleton key");
        }
        UUID owner = reads.findActiveSingletonOwner(run.taskId(), singletonKey).orElse(null);
        return owner == null ? null : new Admission.SingletonHeld(singletonKey, owner);
    }
}

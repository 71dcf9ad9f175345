package io.runlane.internal.trigger;

import io.runlane.Run;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.lifecycle.TransitionSql;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.signal.SignalMailbox;
import java.sql.Types;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Applies a trigger's singleton conflict policy (S-CP-1) once the database refused its run because another active
 * run holds the key. Each policy acts on whoever holds the key <em>when it acts</em>, found by the acting statement
 * itself, never on the id the refusal reported, so the holder cannot change between the check and the action; when
 * nobody holds the key any more the answer is {@code null} and the admission is tried again (it then creates the
 * run).
 *
 * <p>A refused trigger is a duplicate if another trigger of its idempotency key took the key after the refusal (the
 * holder ended and that trigger created the next one, or superseded the holder): every policy reads the key's owner
 * in the statement it acts in, and then answers with that owner and writes nothing (S-SK-3, S-TR-1):
 *
 * <ul>
 *   <li>{@code FAIL} answers the refusal itself: the caller throws (S-SK-2);
 *   <li>{@code RETURN_OWNER} reads the key's owner, else the active holder, in one statement ({@link
 *       #KEY_OWNER_OR_HOLDER}) and returns it; nothing is written (S-CP-2);
 *   <li>{@code SIGNAL_OWNER} stores the trigger's payload as a signal for the active holder in one statement, unless
 *       the trigger's idempotency key has an owner ({@link SignalMailbox#sendToSingletonOwnerUnlessKeyOwned}),
 *       deduplicated by that key, so a repeated trigger delivers once (S-CP-4);
 *   <li>{@code SUPERSEDE} ({@link #supersede}) cancels the holder and creates the run, in the trigger's transaction
 *       (S-CP-3).
 * </ul>
 */
public final class SingletonConflicts {

    /**
     * Who answers a refused trigger, read in one snapshot: the owner of its idempotency key ({@code key_owner}) if it
     * has one (S-SK-3: the key is answered before the singleton), else the active holder of its singleton key. Reading
     * both at one instant makes a refusal true at that instant: the key was free and the singleton held.
     */
    private static final String KEY_OWNER_OR_HOLDER = "SELECT true AS key_owner, r.* FROM {schema}.runs r WHERE"
            + KeyOwnership.keyIs("r") + "\n AND" + KeyOwnership.owns("r") + """

            UNION ALL
            SELECT false, r.* FROM {schema}.runs r
            WHERE r.environment = :environment AND r.task_id = :taskId AND r.singleton_key = :singletonKey
              AND r.finished_at IS NULL AND NOT r.singleton_released
            ORDER BY key_owner DESC
            LIMIT 1
            """;

    /**
     * Step 1 of a supersession: a transaction-level advisory lock on the key, so that supersessions of one key run one
     * after another instead of cancelling and reclaiming each other's rows in crossing orders.
     */
    private static final String LOCK_SUPERSESSIONS = """
            SELECT pg_advisory_xact_lock(hashtextextended(
                :environment || ':' || :taskId || ':' || :singletonKey, 0))
            """;

    /**
     * Then lock the key's active runs, a released predecessor before the holder. A run's ending statement locks the
     * ending run and then the runs waiting for it, so this order cannot deadlock with it.
     */
    private static final String LOCK_KEY = """
            SELECT id FROM {schema}.runs
            WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
              AND finished_at IS NULL
            ORDER BY singleton_released DESC, id
            FOR NO KEY UPDATE
            """;

    /**
     * Step 3: the holder, locked by this update, is cancelled at once when it is not executing; when it is, it is
     * asked to cancel and released: it stays active but no longer holds the key, so the new run can take it in the
     * same transaction (S-CP-3, S-SK-4). Not if the trigger's idempotency key has an owner in this statement's
     * snapshot: the trigger is then a duplicate of that run, which may be the holder itself, and must not touch it
     * (S-TR-1, S-SK-3). Reading the owner here, after the locks of step 1, sees any run that a supersession of the
     * key committed before them.
     */
    private static final String RELEASE_HOLDER = TransitionSql.transition(
            """
            UPDATE {schema}.runs
            SET status = CASE WHEN status IN ('RUNNING', 'CANCELLATION_REQUESTED') THEN 'CANCELLATION_REQUESTED'
                              ELSE 'CANCELLED' END,
                finished_at = CASE WHEN status IN ('RUNNING', 'CANCELLATION_REQUESTED') THEN NULL
                                   ELSE statement_timestamp() END,
                singleton_released = status IN ('RUNNING', 'CANCELLATION_REQUESTED'),
                updated_at = statement_timestamp(), last_event_seq = last_event_seq + 1
            WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
              AND finished_at IS NULL AND NOT singleton_released
              AND NOT EXISTS (
            """ + KeyOwnership.currentOwner("k") + """
            )
            RETURNING *""", TransitionSql.EVENT_BY_STATUS, ":detail");

    /**
     * Steps 2 and 4 for a run with an idempotency key: another run of that key, with another singleton key, may take
     * it between the holder's release and the run's insert; the release is then undone, so that a duplicate writes
     * nothing (S-TR-1).
     */
    private static final String SAVEPOINT = "SAVEPOINT runlane_supersession";

    private static final String ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO SAVEPOINT runlane_supersession";

    private static final String RELEASE_SAVEPOINT = "RELEASE SAVEPOINT runlane_supersession";

    /**
     * Step 5: the released, still executing predecessor of the key, if any, locked {@code FOR SHARE} so that it
     * cannot end before this transaction commits; its ending statement then waits, and the wake-up after its
     * commit ({@code RunEndings}) sees the new run waiting for it.
     */
    private static final String RELEASED_PREDECESSOR = """
            SELECT id FROM {schema}.runs
            WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
              AND finished_at IS NULL AND singleton_released
            FOR SHARE
            """;

    private final JdbcClient jdbc;

    private final RunReads reads;

    private final SignalMailbox mailbox;

    private final String environment;

    private final String lockKey;

    private final String releaseHolder;

    private final String releasedPredecessor;

    private final String keyOwnerOrHolder;

    private final RunTransitions transitions;

    public SingletonConflicts(
            JdbcClient jdbc,
            SqlTemplate sql,
            String environment,
            RunReads reads,
            RunTransitions transitions,
            SignalMailbox mailbox) {
        this.jdbc = jdbc;
        this.reads = reads;
        this.mailbox = mailbox;
        this.environment = environment;
        this.lockKey = sql.format(LOCK_KEY);
        this.releaseHolder = sql.format(RELEASE_HOLDER);
        this.releasedPredecessor = sql.format(RELEASED_PREDECESSOR);
        this.keyOwnerOrHolder = sql.format(KEY_OWNER_OR_HOLDER);
        this.transitions = transitions;
    }

    /**
     * Who answers a refused trigger now ({@link #KEY_OWNER_OR_HOLDER}): its idempotency key's owner as {@code
     * Existing}, else the singleton key's holder as {@code asHolder} makes it; empty when the key has no owner and the
     * singleton key no holder. {@code keys} names the run's task and keys as the admission statements do.
     */
    Optional<Admission> keyOwnerOrHolder(MapSqlParameterSource keys, Function<Run, Admission> asHolder) {
        return jdbc.sql(keyOwnerOrHolder)
                .paramSource(keys)
                .query((rs, rowNum) -> {
                    Run stored = RunRowMapper.INSTANCE.mapRow(rs, rowNum);
                    return rs.getBoolean("key_owner") ? new Admission.Existing(stored) : asHolder.apply(stored);
                })
                .optional();
    }

    /**
     * The answer for a refused run under {@code FAIL}, {@code RETURN_OWNER} or {@code SIGNAL_OWNER}: {@code Existing}
     * when its idempotency key has an owner by now; {@code null} when the key is free now and the caller retries.
     */
    @Nullable
    Admission resolve(NewRun run, Admission.SingletonHeld held) {
        String singletonKey = held.singletonKey();
        return switch (run.onSingletonConflict()) {
            case FAIL, SUPERSEDE -> held;
            case RETURN_OWNER ->
                keyOwnerOrHolder(keys(run), Admission.ReturnedOwner::new).orElse(null);
            case SIGNAL_OWNER -> signalOwner(run, singletonKey);
        };
    }

    private @Nullable Admission signalOwner(NewRun run, String singletonKey) {
        String signalName = Objects.requireNonNull(run.signalName(), "signalName");
        String idempotencyKey = run.idempotencyKey();
        Optional<SignalMailbox.Sent> sent = idempotencyKey == null
                ? mailbox.sendToSingletonOwner(run.taskId(), singletonKey, signalName, run.payloadJson(), null)
                : mailbox.sendToSingletonOwnerUnlessKeyOwned(
                        run.taskId(), singletonKey, signalName, run.payloadJson(), idempotencyKey);
        return sent.flatMap(answer -> reads.get(answer.runId())
                        .<Admission>map(target -> answer.keyOwner()
                                ? new Admission.Existing(target)
                                : new Admission.SignaledOwner(target)))
                .orElse(null);
    }

    /**
     * Newest wins (S-CP-3), inside the trigger's transaction:
     *
     * <ol>
     *   <li>take the key's supersession lock ({@link #LOCK_SUPERSESSIONS}) and lock the key's active runs in a fixed
     *       order ({@link #LOCK_KEY});
     *   <li>for a run with an idempotency key, set a savepoint ({@link #SAVEPOINT});
     *   <li>cancel or release the key's holder ({@link #RELEASE_HOLDER}), with reason "superseded by &lt;id&gt;",
     *       unless the run's idempotency key has an owner by now;
     *   <li>admit the run with {@code admitRun}: the key is free for it now. If the run's idempotency key has an owner
     *       (the trigger is a duplicate), that owner is the answer; if another run took the singleton key in between
     *       (its holder ended and a third trigger got in), the answer is {@code null} and the caller starts over.
     *       Either way the release of step 3 is rolled back to the savepoint: the trigger wrote nothing;
     *   <li>if a released predecessor is still executing (the holder just released, or the one a cancelled waiting
     *       successor was waiting for), lock it ({@link #RELEASED_PREDECESSOR});
     *   <li>and make the run wait for it ({@link RunTransitions#awaitPredecessor}), so the two never execute at
     *       once. Without one, the run waits for what the cancelled holder was waiting for: a run the cancellation
     *       grace ended whose handler still executes (S-CA-5), which is no longer active.
     * </ol>
     *
     * <p>Locks are taken in the order of the steps: the supersession lock, the key's runs, then the index entries of
     * the insert. A duplicate re-checks under the same locks and takes no other, so the check adds no lock order.
     */
    @Nullable
    Admission supersede(NewRun run, Function<NewRun, Optional<Admission>> admitRun) {
        MapSqlParameterSource key = keys(run);
        jdbc.sql(LOCK_SUPERSESSIONS).paramSource(key).query().listOfRows();
        jdbc.sql(lockKey)
                .paramSource(key)
                .query((rs, rowNum) -> rs.getObject("id", UUID.class))
                .list();
        boolean keyed = run.idempotencyKey() != null;
        if (keyed) {
            jdbc.sql(SAVEPOINT).update();
        }
        Optional<Run> holder = jdbc.sql(releaseHolder)
                .paramSource(new MapSqlParameterSource(key.getValues())
                        .addValue("actor", "trigger", Types.VARCHAR)
                        .addValue("detail", "superseded by " + run.id(), Types.VARCHAR))
                .query(RunRowMapper.INSTANCE)
                .optional();
        Admission admitted = admitRun.apply(run).orElse(null);
        if (!(admitted instanceof Admission.Created created)) {
            if (keyed) {
                jdbc.sql(ROLLBACK_TO_SAVEPOINT).update();
                jdbc.sql(RELEASE_SAVEPOINT).update();
            }
            return admitted;
        }
        if (keyed) {
            jdbc.sql(RELEASE_SAVEPOINT).update();
        }
        Optional<UUID> predecessor = jdbc.sql(releasedPredecessor)
                .paramSource(key)
                .query((rs, rowNum) -> rs.getObject("id", UUID.class))
                .optional();
        Run superseding = predecessor
                .or(() -> holder.map(Run::id))
                .flatMap(id -> transitions.awaitPredecessor(run.id(), id, "trigger"))
                .orElse(created.run());
        return new Admission.Superseded(superseding, holder.orElse(null));
    }

    private MapSqlParameterSource keys(NewRun run) {
        return new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", run.taskId(), Types.VARCHAR)
                .addValue("idempotencyKey", run.idempotencyKey(), Types.VARCHAR)
                .addValue("singletonKey", run.singletonKey(), Types.VARCHAR);
    }
}

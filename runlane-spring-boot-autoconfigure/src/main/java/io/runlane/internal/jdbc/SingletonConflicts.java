package io.runlane.internal.jdbc;

import io.runlane.Run;
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
 * run):
 *
 * <ul>
 *   <li>{@code FAIL} answers the refusal itself: the caller throws (S-SK-2);
 *   <li>{@code RETURN_OWNER} reads the active holder and returns it; nothing is written (S-CP-2);
 *   <li>{@code SIGNAL_OWNER} stores the trigger's payload as a signal for the active holder in one statement ({@link
 *       SignalMailbox#sendToSingletonOwner}), deduplicated by the trigger's idempotency key when it has one, so a
 *       repeated trigger delivers once (S-CP-4);
 *   <li>{@code SUPERSEDE} ({@link #supersede}) cancels the holder and creates the run, in the trigger's transaction
 *       (S-CP-3).
 * </ul>
 */
public final class SingletonConflicts {

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
     * Step 2: the holder, locked by this update, is cancelled at once when it is not executing;
     * when it is, it is asked to cancel and released: it stays active but no longer holds the key, so the new run
     * can take it in the same transaction (S-CP-3, S-SK-4).
     */
    private static final String RELEASE_HOLDER =
            TransitionSql.transition("""
            UPDATE {schema}.runs
            SET status = CASE WHEN status IN ('RUNNING', 'CANCELLATION_REQUESTED') THEN 'CANCELLATION_REQUESTED'
                              ELSE 'CANCELLED' END,
                finished_at = CASE WHEN status IN ('RUNNING', 'CANCELLATION_REQUESTED') THEN NULL
                                   ELSE statement_timestamp() END,
                singleton_released = status IN ('RUNNING', 'CANCELLATION_REQUESTED'),
                updated_at = statement_timestamp(), last_event_seq = last_event_seq + 1
            WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
              AND finished_at IS NULL AND NOT singleton_released
            RETURNING *""", TransitionSql.EVENT_BY_STATUS, ":detail");

    /**
     * Step 4: the released, still executing predecessor of the key, if any, locked {@code FOR SHARE} so that it
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
        this.transitions = transitions;
    }

    /**
     * The answer for a refused run under {@code FAIL}, {@code RETURN_OWNER} or {@code SIGNAL_OWNER}; {@code null}
     * when the key is free now and the caller retries.
     */
    @Nullable
    Admission resolve(NewRun run, Admission.SingletonHeld held) {
        String singletonKey = held.singletonKey();
        return switch (run.onSingletonConflict()) {
            case FAIL, SUPERSEDE -> held;
            case RETURN_OWNER ->
                reads.findActive(run.taskId(), null, singletonKey)
                        .<Admission>map(Admission.ReturnedOwner::new)
                        .orElse(null);
            case SIGNAL_OWNER ->
                mailbox.sendToSingletonOwner(
                                run.taskId(),
                                singletonKey,
                                Objects.requireNonNull(run.signalName(), "signalName"),
                                run.payloadJson(),
                                run.idempotencyKey())
                        .flatMap(sent -> reads.get(sent.runId()))
                        .<Admission>map(Admission.SignaledOwner::new)
                        .orElse(null);
        };
    }

    /**
     * Newest wins (S-CP-3), inside the trigger's transaction, which already holds the run's idempotency key claim:
     *
     * <ol>
     *   <li>take the key's supersession lock ({@link #LOCK_SUPERSESSIONS}) and lock the key's active runs in a fixed
     *       order ({@link #LOCK_KEY});
     *   <li>cancel or release the key's holder ({@link #RELEASE_HOLDER}), with reason "superseded by &lt;id&gt;";
     *   <li>insert the run with {@code insertRun}: the key is free for it now. If another run took the key in between
     *       (its holder ended and a third trigger got in), the answer is {@code null} and the caller starts over;
     *   <li>if a released predecessor is still executing (the holder just released, or the one a cancelled waiting
     *       successor was waiting for), lock it ({@link #RELEASED_PREDECESSOR});
     *   <li>and make the run wait for it ({@link RunTransitions#awaitPredecessor}), so the two never execute at
     *       once. Without one, the run waits for what the cancelled holder was waiting for: a run the cancellation
     *       grace ended whose handler still executes (S-CA-5), which is no longer active.
     * </ol>
     */
    @Nullable
    Admission supersede(NewRun run, Function<NewRun, Optional<Run>> insertRun) {
        MapSqlParameterSource key = new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", run.taskId(), Types.VARCHAR)
                .addValue("singletonKey", run.singletonKey(), Types.VARCHAR);
        jdbc.sql(LOCK_SUPERSESSIONS).paramSource(key).query().listOfRows();
        jdbc.sql(lockKey)
                .paramSource(key)
                .query((rs, rowNum) -> rs.getObject("id", UUID.class))
                .list();
        Optional<Run> holder = jdbc.sql(releaseHolder)
                .paramSource(new MapSqlParameterSource(key.getValues())
                        .addValue("actor", "trigger", Types.VARCHAR)
                        .addValue("detail", "superseded by " + run.id(), Types.VARCHAR))
                .query(RunRowMapper.INSTANCE)
                .optional();
        Optional<Run> created = insertRun.apply(run);
        if (created.isEmpty()) {
            return null;
        }
        Optional<UUID> predecessor = jdbc.sql(releasedPredecessor)
                .paramSource(key)
                .query((rs, rowNum) -> rs.getObject("id", UUID.class))
                .optional();
        Run admitted = predecessor
                .or(() -> holder.map(Run::id))
                .flatMap(id -> transitions.awaitPredecessor(run.id(), id, "trigger"))
                .orElse(created.get());
        return new Admission.Superseded(admitted, holder.orElse(null));
    }
}

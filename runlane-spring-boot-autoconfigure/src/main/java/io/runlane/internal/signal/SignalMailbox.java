package io.runlane.internal.signal;

import io.runlane.RunSignal;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.RunIds;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.KeyOwnership;
import io.runlane.internal.wait.SignalWakeUps;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Stores signals and wakes the runs that wait for them (S-SG-1..3, S-SG-5).
 *
 * <p>A send is one statement in the caller's transaction (S-TR-3):
 *
 * <ol>
 *   <li>read the target run (by id, or as the active holder of a singleton key, S-SG-3) in this environment;
 *   <li>insert the signal only if that run is active, {@code ON CONFLICT DO NOTHING} on the deduplication index, so
 *       that a repeated key stores nothing under any concurrency (S-SG-2): a concurrent repeat waits for the first
 *       insert and skips once it commits, or inserts when it rolls back;
 *   <li>if a signal was stored and the run is {@code WAITING} for that name, set its {@code run_at} to now: the same
 *       wake-up as every other wait source (S-SG-4).
 * </ol>
 *
 * <p>The statement cannot see a run that parks concurrently, and the run's own parking statement, whose snapshot may
 * predate the send's commit, might not see the signal either. So when the send did not wake the run, it checks
 * again right after it commits, and so does the park ({@link SignalWakeUps}).
 *
 * <p>A send takes no lock on the run row unless it wakes the run, so a long caller transaction never holds up the
 * worker's heartbeats or completion.
 *
 * <p>A trigger's {@code SIGNAL_OWNER} policy ({@link #sendToSingletonOwnerUnlessKeyOwned}) reads, in the same
 * statement and snapshot, whether the trigger's idempotency key has an owner: a duplicate of a trigger that created
 * the key's holder in the meantime is answered with that run and sends nothing (S-SK-3, S-CP-4).
 */
public final class SignalMailbox {

    /** The send's tail: store, wake, report. {@code %s} selects the target run into the CTE {@code target}. */
    private static final String SEND = """
            WITH target AS (
                %s
            ), stored AS (
                INSERT INTO {schema}.run_signals (id, run_id, name, payload, sent_at, deduplication_key)
                SELECT :id, t.id, :name, cast(:payload AS jsonb), statement_timestamp(), :deduplicationKey
                FROM target t WHERE NOT t.key_owner AND t.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
                ON CONFLICT (run_id, name, deduplication_key) WHERE deduplication_key IS NOT NULL DO NOTHING
                RETURNING run_id
            ), woken AS (
                UPDATE {schema}.runs r SET run_at = statement_timestamp()
                FROM stored s
                WHERE r.id = s.run_id AND r.status = 'WAITING' AND r.awaiting_signal = :name
                  AND r.run_at > statement_timestamp()
                RETURNING r.id
            )
            SELECT t.id, t.status, t.key_owner, (SELECT count(*) FROM stored) AS stored,
                   (SELECT count(*) FROM woken) AS woken
            FROM target t
            """;

    private static final String BY_ID = """
            SELECT id, status, false AS key_owner FROM {schema}.runs
                WHERE id = :runId AND environment = :environment""";

    /** S-SG-3: the active holder of the key (an owner released by SUPERSEDE no longer holds it, S-CP-3). */
    private static final String BY_SINGLETON_OWNER = """
            SELECT id, status, false AS key_owner FROM {schema}.runs
                WHERE environment = :environment AND task_id = :taskId AND singleton_key = :singletonKey
                  AND finished_at IS NULL AND NOT singleton_released""";

    /**
     * S-SK-3, S-CP-4: the current owner of the trigger's idempotency key ({@code key_owner}, to which nothing is
     * sent) if it has one, else the singleton key's active holder.
     */
    private static final String BY_KEY_OWNER_OR_SINGLETON_OWNER = "SELECT o.id, o.status, true AS key_owner FROM (\n"
            + KeyOwnership.currentOwner("k") + "\n) o\nUNION ALL\n" + BY_SINGLETON_OWNER + """

            ORDER BY key_owner DESC
            LIMIT 1""";

    private static final String LIST = """
            SELECT s.id, s.name, s.payload::text AS payload, s.sent_at, s.consumed_at, s.deduplication_key
            FROM {schema}.run_signals s JOIN {schema}.runs r ON r.id = s.run_id
            WHERE s.run_id = :runId AND r.environment = :environment
            ORDER BY s.sent_at, s.id
            """;

    /**
     * What a send found and did; {@code keyOwner} when the run owns the trigger's idempotency key, so that nothing was
     * sent to it ({@link #sendToSingletonOwnerUnlessKeyOwned}).
     */
    public record Sent(UUID runId, RunStatus status, boolean keyOwner, boolean stored, boolean woken) {}

    private final JdbcClient jdbc;

    private final SignalWakeUps wakeUps;

    private final String environment;

    private final DueRunNotifier notifier;

    private final String sendById;

    private final String sendToOwner;

    private final String sendToOwnerUnlessKeyOwned;

    private final String list;

    public SignalMailbox(
            JdbcClient jdbc, SqlTemplate sql, String environment, DueRunNotifier notifier, SignalWakeUps wakeUps) {
        this.jdbc = jdbc;
        this.wakeUps = wakeUps;
        this.environment = environment;
        this.notifier = notifier;
        this.sendById = sql.format(SEND.formatted(BY_ID));
        this.sendToOwner = sql.format(SEND.formatted(BY_SINGLETON_OWNER));
        this.sendToOwnerUnlessKeyOwned = sql.format(SEND.formatted(BY_KEY_OWNER_OR_SINGLETON_OWNER));
        this.list = sql.format(LIST);
    }

    /** Sends to a run by id. Empty when no such run exists; a terminal run is reported, with nothing stored. */
    public Optional<Sent> send(UUID runId, String name, String payloadJson, @Nullable String deduplicationKey) {
        return send(sendById, signal(name, payloadJson, deduplicationKey).addValue("runId", runId, Types.OTHER));
    }

    /** Sends to the active holder of a singleton key, found in the same statement. Empty when there is none. */
    public Optional<Sent> sendToSingletonOwner(
            String taskId, String singletonKey, String name, String payloadJson, @Nullable String deduplicationKey) {
        return send(
                sendToOwner,
                signal(name, payloadJson, deduplicationKey)
                        .addValue("taskId", taskId, Types.VARCHAR)
                        .addValue("singletonKey", singletonKey, Types.VARCHAR));
    }

    /**
     * A trigger's {@code SIGNAL_OWNER} policy (S-CP-4): sends to the active holder of a singleton key, deduplicated by
     * the trigger's idempotency key, unless that key has an owner, which is returned instead ({@link Sent#keyOwner()})
     * and sent nothing: the trigger is a duplicate (S-SK-3). Both are read in the statement that sends. Empty when the
     * key has no owner and the singleton key no holder.
     */
    public Optional<Sent> sendToSingletonOwnerUnlessKeyOwned(
            String taskId, String singletonKey, String name, String payloadJson, String idempotencyKey) {
        return send(
                sendToOwnerUnlessKeyOwned,
                signal(name, payloadJson, idempotencyKey)
                        .addValue("taskId", taskId, Types.VARCHAR)
                        .addValue("singletonKey", singletonKey, Types.VARCHAR)
                        .addValue("idempotencyKey", idempotencyKey, Types.VARCHAR));
    }

    /** A run's signals in the order they were sent (S-SG-5). */
    public List<RunSignal> list(UUID runId) {
        return jdbc.sql(list)
                .paramSource(new MapSqlParameterSource()
                        .addValue("runId", runId, Types.OTHER)
                        .addValue("environment", environment, Types.VARCHAR))
                .query((rs, rowNum) -> {
                    OffsetDateTime consumedAt = rs.getObject("consumed_at", OffsetDateTime.class);
                    return new RunSignal(
                            rs.getObject("id", UUID.class),
                            rs.getString("name"),
                            rs.getString("payload"),
                            rs.getObject("sent_at", OffsetDateTime.class).toInstant(),
                            consumedAt == null ? null : consumedAt.toInstant(),
                            rs.getString("deduplication_key"));
                })
                .list();
    }

    private Optional<Sent> send(String statement, MapSqlParameterSource params) {
        Optional<Sent> sent = jdbc.sql(statement)
                .paramSource(params)
                .query((rs, rowNum) -> new Sent(
                        rs.getObject("id", UUID.class),
                        RunStatus.valueOf(rs.getString("status")),
                        rs.getBoolean("key_owner"),
                        rs.getLong("stored") > 0,
                        rs.getLong("woken") > 0))
                .optional();
        sent.ifPresent(answer -> {
            if (answer.woken()) {
                notifier.runBecameDue();
            } else if (answer.stored()) {
                wakeUps.wakeAfterCommit(answer.runId(), params.getValue("name").toString());
            }
        });
        return sent;
    }

    private MapSqlParameterSource signal(String name, String payloadJson, @Nullable String deduplicationKey) {
        return new MapSqlParameterSource()
                .addValue("id", RunIds.next(), Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("name", name, Types.VARCHAR)
                .addValue("payload", payloadJson, Types.VARCHAR)
                .addValue("deduplicationKey", deduplicationKey, Types.VARCHAR);
    }
}

package io.runlane.internal.result;

import io.runlane.internal.kernel.ArrayParameters;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.TransitionSql;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Tells other instances, and the runs waiting for them, that runs this instance recorded as ended did end (S-RS-2,
 * S-RS-4).
 *
 * <p>One daemon thread, started at the first end, sends the ids queued by {@link #ended}, coalesced, at most one
 * notification every 5 ms (many ids per payload, or {@value #EVERYTHING} for "re-check everything" when too many
 * ended at once), each in its own tiny transaction, so that completions never serialise on PostgreSQL's notification
 * queue. The same statement wakes the {@code WAITING} runs that await those runs ({@link #WAKE_AND_NOTIFY}) and, if
 * it woke any, the workers. When an attempt's outcome was refused because the cancellation grace had ended its run
 * ({@link #attemptRefused}), the attempt's lease is dropped first ({@link #ATTEMPTS_ENDED}), which lets a successor
 * waiting for that run go (S-CP-3). A failed statement is only logged: callers poll, and maintenance wakes parked
 * runs ({@code MissedWakeUps}).
 */
final class EndingSender {

    private static final Log logger = LogFactory.getLog(RunEndings.class);

    /** The payload that has every listener re-check all its callers. */
    static final String EVERYTHING = "*";

    private static final long MIN_INTERVAL_MILLIS = 5;

    private static final int MAX_IDS_PER_NOTIFICATION = 200;

    /**
     * S-RS-4: wakes the runs parked on runs that ended, and notifies callers. The statement that ended a run already
     * woke the runs it could see parked; this one, run after that statement committed and on a fresh snapshot, sees
     * every park that committed before it. A park still in progress then read the ended run under a share lock, so
     * it either saw the end or made the ending statement wait for it to commit, which is before this statement: with
     * both, no parked run is missed ({@code RunParking}, {@code TransitionSql}). Maintenance covers a crash between
     * the two ({@code MissedWakeUps}). A successor waiting for its predecessor is woken only if that run is terminal
     * and no attempt of it may still execute ({@link TransitionSql#attemptGone}, S-CP-3).
     */
    private static final String WAKE_AND_NOTIFY = """
            WITH woken AS (
                UPDATE {schema}.runs w SET %s
                WHERE w.status = 'WAITING' AND w.awaiting_run_id = ANY(?) AND w.run_at > statement_timestamp()
                  AND (w.attempts > 0 OR EXISTS (SELECT FROM {schema}.runs a
                                                 WHERE a.id = w.awaiting_run_id AND a.finished_at IS NOT NULL
                                                   AND %s))
                RETURNING w.id
            )
            SELECT (SELECT count(*) FROM woken) AS woken, pg_notify(?, ?) AS notified
            """.formatted(TransitionSql.WAKE, TransitionSql.attemptGone("a"));

    /**
     * S-CP-3, S-CA-5: the handler of an attempt whose run the cancellation grace ended has returned (its outcome was
     * refused): the attempt's lease, which its worker kept extending meanwhile, is dropped, fenced by the claim's
     * token, so that a successor waiting for the run is woken ({@link #WAKE_AND_NOTIFY}, run next for these runs).
     */
    private static final String ATTEMPTS_ENDED = """
            UPDATE {schema}.runs r SET lease_owner = NULL, lease_expires_at = NULL
            FROM unnest(?, ?) AS ended(id, fencing_token)
            WHERE r.id = ended.id AND r.fencing_token = ended.fencing_token AND r.finished_at IS NOT NULL
              AND r.lease_expires_at IS NOT NULL
            RETURNING r.id
            """;

    private final String wakeAndNotify;

    private final String attemptsEnded;

    private final DueRunNotifier workers;

    private final String channel;

    private final JdbcTemplate jdbc;

    private final Set<UUID> unsent = ConcurrentHashMap.newKeySet();

    /** Attempts whose outcome was refused, by run id, with their claim's fencing token; not yet sent. */
    private final ConcurrentHashMap<UUID, Long> refusedAttempts = new ConcurrentHashMap<>();

    private final Object sendSignal = new Object();

    private @Nullable Thread sender;

    private volatile boolean stopped;

    EndingSender(DataSource dataSource, SqlTemplate sql, DueRunNotifier workers, String channel) {
        this.wakeAndNotify = sql.format(WAKE_AND_NOTIFY);
        this.attemptsEnded = sql.format(ATTEMPTS_ENDED);
        this.workers = workers;
        this.channel = channel;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /** Queues the id of a run this instance recorded as ended, unless stopped. */
    void ended(UUID runId) {
        if (stopped) {
            return;
        }
        unsent.add(runId);
        synchronized (sendSignal) {
            ensureSender();
            sendSignal.notifyAll();
        }
    }

    /** Queues the lease of an attempt whose outcome was refused to be dropped, unless stopped. */
    void attemptRefused(UUID runId, long fencingToken) {
        if (stopped) {
            return;
        }
        refusedAttempts.put(runId, fencingToken);
        synchronized (sendSignal) {
            ensureSender();
            sendSignal.notifyAll();
        }
    }

    /** Stops sending from now on; returns the sending thread, if any, for the caller to interrupt and join. */
    @Nullable
    Thread stop() {
        synchronized (sendSignal) {
            stopped = true;
            Thread sending = sender;
            sender = null;
            return sending;
        }
    }

    private void ensureSender() {
        if (sender == null && !stopped) {
            sender = RunEndings.daemon("runlane-endings-").newThread(this::sendUntilInterrupted);
            sender.start();
        }
    }

    private void sendUntilInterrupted() {
        while (!Thread.currentThread().isInterrupted() && !stopped) {
            try {
                synchronized (sendSignal) {
                    while (unsent.isEmpty() && refusedAttempts.isEmpty()) {
                        sendSignal.wait();
                    }
                }
                endRefusedAttempts();
                List<UUID> ids = new ArrayList<>(unsent);
                unsent.removeAll(ids);
                if (ids.isEmpty()) {
                    continue;
                }
                String payload = ids.size() > MAX_IDS_PER_NOTIFICATION ? EVERYTHING : joined(ids);
                Long woken = jdbc.query(
                        wakeAndNotify,
                        rs -> rs.next() ? rs.getLong("woken") : 0L,
                        ArrayParameters.uuids(ids),
                        channel,
                        payload);
                if (woken != null && woken > 0) {
                    workers.runBecameDue();
                }
                Thread.sleep(MIN_INTERVAL_MILLIS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException ex) {
                logger.debug(
                        "Could not wake the waiters of ended runs; callers poll, maintenance wakes parked runs", ex);
            }
        }
    }

    /** The ids, comma-separated: the notification's payload. */
    private static String joined(List<UUID> ids) {
        StringBuilder payload = new StringBuilder(ids.size() * 37);
        for (UUID id : ids) {
            if (!payload.isEmpty()) {
                payload.append(',');
            }
            payload.append(id);
        }
        return payload.toString();
    }

    /**
     * Drops the leases of the refused attempts' ended runs ({@link #ATTEMPTS_ENDED}) and queues those runs for the
     * wake-up. An attempt whose run is not terminal (its lease was lost to recovery) changes nothing. If the statement
     * fails, the leases expire on their own and maintenance wakes the successors ({@code MissedWakeUps}).
     */
    private void endRefusedAttempts() {
        if (refusedAttempts.isEmpty()) {
            return;
        }
        Map<UUID, Long> attempts = new HashMap<>(refusedAttempts);
        attempts.forEach(refusedAttempts::remove);
        List<UUID> runIds = new ArrayList<>(attempts.keySet());
        List<UUID> ended = jdbc.query(
                attemptsEnded,
                (rs, rowNum) -> rs.getObject(1, UUID.class),
                ArrayParameters.uuids(runIds),
                ArrayParameters.longs(runIds.stream().mapToLong(attempts::get).toArray()));
        unsent.addAll(ended);
    }
}

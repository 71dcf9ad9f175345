package io.runlane.internal.result;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.QuietConnectionCheck;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.TransitionSql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Wakes callers of {@code runs().awaitResult} when runs end (S-RS-2). One per engine:
 *
 * <ol>
 *   <li>a caller subscribes to a run's end in memory ({@link #subscribe}) and only then reads the run, so an end
 *       that happens after the read always finds the subscription: no wake-up can be missed;
 *   <li>when this instance records a terminal outcome (it hears of it as an {@link EngineListener}), it wakes its
 *       own subscribers at once and queues the run id for a {@code NOTIFY} on {@code runlane_<schema>_ended};
 *   <li>one daemon thread sends those ids, coalesced, at most one notification every 5 ms (many ids per payload,
 *       or {@code *} for "re-check everything" when too many ended at once), each in its own tiny transaction, so
 *       that completions never serialise on PostgreSQL's notification queue. The same statement wakes the {@code
 *       WAITING} runs that await those runs ({@link #WAKE_AND_NOTIFY}) and, if it woke any, the workers. When an
 *       attempt's outcome was refused because the cancellation grace had ended its run, the attempt's lease is
 *       dropped first ({@link #ATTEMPTS_ENDED}), which lets a successor waiting for that run go (S-CP-3);
 *   <li>one listening connection per engine, opened while anybody waits (and for a while after), wakes the
 *       subscribers of the ids it hears from other instances. Never a connection per caller: 200 callers awaiting
 *       one run share it.
 * </ol>
 *
 * Notifications are only hints; callers also poll, so a lost connection or notification costs latency, never a
 * wrong answer.
 */
public final class RunEndings implements EngineListener {

    private static final Log logger = LogFactory.getLog(RunEndings.class);

    private static final long MIN_INTERVAL_MILLIS = 5;

    private static final int MAX_IDS_PER_NOTIFICATION = 200;

    private static final String EVERYTHING = "*";

    private static final Duration LISTEN_IDLE = Duration.ofSeconds(30);

    /** One caller waiting for one run to end. */
    public static final class Subscription {

        private final UUID runId;

        private boolean signalled;

        private Subscription(UUID runId) {
            this.runId = runId;
        }

        synchronized void signal() {
            signalled = true;
            notifyAll();
        }

        /** Waits until signalled or {@code timeout} passed; clears the signal. */
        public synchronized void await(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            long remaining;
            while (!signalled && (remaining = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
            }
            signalled = false;
        }
    }

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

    private final DataSource dataSource;

    private final String wakeAndNotify;

    private final String attemptsEnded;

    private final DueRunNotifier workers;

    private final String channel;

    private final JdbcTemplate jdbc;

    private final ConcurrentHashMap<UUID, Set<Subscription>> subscriptions = new ConcurrentHashMap<>();

    private final Set<UUID> unsent = ConcurrentHashMap.newKeySet();

    /** Attempts whose outcome was refused, by run id, with their claim's fencing token; not yet sent. */
    private final ConcurrentHashMap<UUID, Long> refusedAttempts = new ConcurrentHashMap<>();

    private final Object sendSignal = new Object();

    private final Object listening = new Object();

    private @Nullable Thread sender;

    private @Nullable Thread listener;

    private CountDownLatch listenerReady = new CountDownLatch(1);

    private volatile boolean stopped;

    public RunEndings(DataSource dataSource, SqlTemplate sql, DueRunNotifier workers) {
        String schema = sql.schema();
        this.wakeAndNotify = sql.format(WAKE_AND_NOTIFY);
        this.attemptsEnded = sql.format(ATTEMPTS_ENDED);
        this.workers = workers;
        this.dataSource = dataSource;
        this.channel = "runlane_" + schema + "_ended";
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /**
     * Subscribes to the end of a run. Waits briefly until the listening connection listens, so that an end recorded
     * by another instance after the caller's first read is heard.
     */
    public Subscription subscribe(UUID runId) {
        Subscription subscription = new Subscription(runId);
        // Added inside compute: an unsubscribe that empties and removes the set cannot orphan this subscription.
        subscriptions.compute(runId, (id, set) -> {
            Set<Subscription> waiting = set == null ? ConcurrentHashMap.newKeySet() : set;
            waiting.add(subscription);
            return waiting;
        });
        CountDownLatch ready = ensureListening();
        try {
            ready.await(1, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return subscription;
    }

    public void unsubscribe(Subscription subscription) {
        subscriptions.computeIfPresent(subscription.runId, (id, set) -> {
            set.remove(subscription);
            return set.isEmpty() ? null : set;
        });
    }

    /** How many callers of this instance wait for the run to end now. */
    public int subscribers(UUID runId) {
        Set<Subscription> waiting = subscriptions.get(runId);
        return waiting == null ? 0 : waiting.size();
    }

    /** This instance recorded that the run ended: wake local subscribers and tell other instances. */
    public void ended(UUID runId) {
        wake(runId);
        if (stopped) {
            return;
        }
        unsent.add(runId);
        synchronized (sendSignal) {
            ensureSender();
            sendSignal.notifyAll();
        }
    }

    @Override
    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
        if (result.equals("succeeded") || result.equals("failed") || result.equals("cancelled")) {
            ended(claimed.run().id());
        } else if (result.equals("lease_lost") && !stopped) {
            refusedAttempts.put(claimed.run().id(), claimed.fencingToken());
            synchronized (sendSignal) {
                ensureSender();
                sendSignal.notifyAll();
            }
        }
    }

    @Override
    public void runEnded(UUID runId, RunStatus status) {
        ended(runId);
    }

    private void wake(UUID runId) {
        Set<Subscription> waiting = subscriptions.get(runId);
        if (waiting != null) {
            waiting.forEach(Subscription::signal);
        }
    }

    private void wakeEveryone() {
        subscriptions.values().forEach(set -> set.forEach(Subscription::signal));
    }

    /** Ends the sender and the listener (S-MO-4); later ends only wake this instance's callers. */
    public void stop() {
        Thread sending;
        Thread listening;
        synchronized (sendSignal) {
            stopped = true;
            sending = sender;
            sender = null;
        }
        synchronized (this.listening) {
            listening = listener;
            listener = null;
        }
        for (Thread thread : new Thread[] {sending, listening}) {
            if (thread != null) {
                thread.interrupt();
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(10));
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private void ensureSender() {
        if (sender == null && !stopped) {
            sender = daemon("runlane-endings-").newThread(this::sendUntilInterrupted);
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
                String payload = ids.size() > MAX_IDS_PER_NOTIFICATION
                        ? EVERYTHING
                        : String.join(",", ids.stream().map(UUID::toString).toList());
                Long woken = jdbc.query(
                        wakeAndNotify,
                        rs -> rs.next() ? rs.getLong("woken") : 0L,
                        new SqlArrayValue("uuid", ids.toArray()),
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
                new SqlArrayValue("uuid", runIds.toArray()),
                new SqlArrayValue("bigint", runIds.stream().map(attempts::get).toArray()));
        unsent.addAll(ended);
    }

    private CountDownLatch ensureListening() {
        synchronized (listening) {
            if (listener == null && !stopped) {
                listenerReady = new CountDownLatch(1);
                listener = daemon("runlane-endings-listener-").newThread(this::listenWhileWanted);
                listener.start();
            }
            return listenerReady;
        }
    }

    /** Listens until nobody has waited for {@link #LISTEN_IDLE}; reconnects after failures while anybody waits. */
    private void listenWhileWanted() {
        long idleSince = System.nanoTime();
        while (!stopped) {
            try (java.sql.Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                try (java.sql.Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + channel);
                }
                org.postgresql.PGConnection pg = connection.unwrap(org.postgresql.PGConnection.class);
                listenerReady.countDown();
                // Ends heard before LISTEN took effect are found by the callers' own reads and polls.
                wakeEveryone();
                QuietConnectionCheck check = new QuietConnectionCheck(QuietConnectionCheck.DEFAULT_INTERVAL);
                while (!stopped) {
                    org.postgresql.PGNotification[] heard = pg.getNotifications(250);
                    if (heard != null && heard.length > 0) {
                        check.answered();
                        for (org.postgresql.PGNotification notification : heard) {
                            dispatch(notification.getParameter());
                        }
                    } else {
                        check.requireAnswering(connection);
                    }
                    if (!subscriptions.isEmpty()) {
                        idleSince = System.nanoTime();
                    } else if (stopIfIdle(idleSince)) {
                        return;
                    }
                }
            } catch (java.sql.SQLException | RuntimeException ex) {
                logger.debug("Listening for ended runs failed; callers poll meanwhile", ex);
                listenerReady.countDown();
                if (stopped || stopIfIdle(idleSince) || !pause()) {
                    return;
                }
            }
        }
        listenerReady.countDown();
    }

    private boolean stopIfIdle(long idleSince) {
        synchronized (listening) {
            if (subscriptions.isEmpty() && System.nanoTime() - idleSince > LISTEN_IDLE.toNanos()) {
                listener = null;
                return true;
            }
            return false;
        }
    }

    private void dispatch(String payload) {
        if (payload.equals(EVERYTHING)) {
            wakeEveryone();
            return;
        }
        for (String id : payload.split(",")) {
            try {
                wake(UUID.fromString(id));
            } catch (IllegalArgumentException ex) {
                wakeEveryone();
            }
        }
    }

    private boolean pause() {
        try {
            Thread.sleep(1000);
            return true;
        } catch (InterruptedException ex) {
            synchronized (listening) {
                listener = null;
            }
            return false;
        }
    }

    private static CustomizableThreadFactory daemon(String prefix) {
        CustomizableThreadFactory threads = new CustomizableThreadFactory(prefix);
        threads.setDaemon(true);
        return threads;
    }
}

package io.runlane.internal.result;

import io.runlane.internal.kernel.QuietConnectionCheck;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Hears the ends of runs other instances recorded, and wakes this instance's callers awaiting them (S-RS-2).
 *
 * <p>One listening connection per engine, opened while anybody waits (and for {@link #LISTEN_IDLE} after), wakes the
 * subscribers of the ids it hears on {@code runlane_<schema>_ended}, all of them on {@value EndingSender#EVERYTHING}
 * or a payload it cannot read. Never a connection per caller: 200 callers awaiting one run share it. After a failure
 * it reconnects, once a second, while anybody waits; meanwhile callers poll.
 */
final class EndingListener {

    private static final Log logger = LogFactory.getLog(RunEndings.class);

    private static final Duration LISTEN_IDLE = Duration.ofSeconds(30);

    private final DataSource dataSource;

    private final String channel;

    private final Consumer<UUID> wake;

    private final Runnable wakeEveryone;

    private final BooleanSupplier anybodyWaiting;

    private final Object listening = new Object();

    private @Nullable Thread listener;

    private CountDownLatch listenerReady = new CountDownLatch(1);

    private volatile boolean stopped;

    EndingListener(
            DataSource dataSource,
            String channel,
            Consumer<UUID> wake,
            Runnable wakeEveryone,
            BooleanSupplier anybodyWaiting) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wake = wake;
        this.wakeEveryone = wakeEveryone;
        this.anybodyWaiting = anybodyWaiting;
    }

    /**
     * Starts listening unless the connection listens or is being opened already; returns a latch that opens once it
     * listens (or its attempt to failed).
     */
    CountDownLatch ensureListening() {
        synchronized (listening) {
            if (listener == null && !stopped) {
                listenerReady = new CountDownLatch(1);
                listener = RunEndings.daemon("runlane-endings-listener-").newThread(this::listenWhileWanted);
                listener.start();
            }
            return listenerReady;
        }
    }

    /** Stops listening from now on; returns the listening thread, if any, for the caller to interrupt and join. */
    @Nullable
    Thread stop() {
        stopped = true;
        synchronized (listening) {
            Thread current = listener;
            listener = null;
            return current;
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
                wakeEveryone.run();
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
                    if (anybodyWaiting.getAsBoolean()) {
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
            if (!anybodyWaiting.getAsBoolean() && System.nanoTime() - idleSince > LISTEN_IDLE.toNanos()) {
                listener = null;
                return true;
            }
            return false;
        }
    }

    private void dispatch(String payload) {
        if (payload.equals(EndingSender.EVERYTHING)) {
            wakeEveryone.run();
            return;
        }
        for (String id : payload.split(",")) {
            try {
                wake.accept(UUID.fromString(id));
            } catch (IllegalArgumentException ex) {
                wakeEveryone.run();
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
}

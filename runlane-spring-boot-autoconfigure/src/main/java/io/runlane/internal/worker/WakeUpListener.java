package io.runlane.internal.worker;

import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.QuietConnectionCheck;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Listens on {@code runlane_<schema>} with one dedicated connection and wakes the worker when a trigger commits a
 * run that is due at once. Notifications sent by this instance's own {@link DueRunNotifier} are ignored: it woke the
 * worker in-process already, and waking it again would only cost a claim that finds nothing. Notifications are only
 * a hint: polling stays the source of truth, so a lost connection costs latency, never runs; the listener reconnects
 * after a pause, whatever failed, errors included (S-MO-4).
 *
 * <p>Waiting for notifications cannot tell a quiet server from one that stopped answering (a hung primary keeps its
 * connections open): every wait ends empty. So while no notification arrives, the listener checks the connection
 * ({@link QuietConnectionCheck}) and reconnects when it does not answer (S-MO-10).
 */
final class WakeUpListener implements Runnable {

    private static final Log logger = LogFactory.getLog(WakeUpListener.class);

    private static final Duration RECONNECT_PAUSE = Duration.ofSeconds(5);

    /** The pause before the first reconnection of an outage: a failover's new primary is usually there by then. */
    private static final Duration FIRST_RECONNECT_PAUSE = Duration.ofSeconds(1);

    private static final int NOTIFICATION_WAIT_MILLIS = 500;

    private final DataSource dataSource;

    private final String channel;

    private final Runnable wakeUp;

    private final String ownOrigin;

    private volatile boolean running = true;

    private boolean healthy = true;

    private final Duration healthCheckInterval;

    private volatile Connection connection;

    WakeUpListener(DataSource dataSource, String schema, String ownOrigin, Runnable wakeUp) {
        this(dataSource, schema, ownOrigin, wakeUp, QuietConnectionCheck.DEFAULT_INTERVAL);
    }

    WakeUpListener(
            DataSource dataSource, String schema, String ownOrigin, Runnable wakeUp, Duration healthCheckInterval) {
        this.dataSource = dataSource;
        this.channel = "runlane_" + schema;
        this.ownOrigin = ownOrigin;
        this.wakeUp = wakeUp;
        this.healthCheckInterval = healthCheckInterval;
    }

    @Override
    public void run() {
        while (running) {
            try (Connection listening = dataSource.getConnection()) {
                connection = listening;
                listening.setAutoCommit(true);
                try (Statement statement = listening.createStatement()) {
                    statement.execute("LISTEN " + channel);
                }
                PGConnection pg = listening.unwrap(PGConnection.class);
                healthy = true;
                wakeUp.run();
                QuietConnectionCheck check = new QuietConnectionCheck(healthCheckInterval);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(NOTIFICATION_WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        check.answered();
                        if (fromElsewhere(notifications, ownOrigin)) {
                            wakeUp.run();
                        }
                    } else {
                        check.requireAnswering(listening);
                    }
                }
            } catch (SQLException | RuntimeException | Error ex) {
                if (running) {
                    // Warn once per outage; polling keeps working meanwhile.
                    if (healthy) {
                        logger.warn(
                                "Listening for new runs failed; polling continues, reconnecting every "
                                        + RECONNECT_PAUSE.toSeconds() + " s",
                                ex);
                    } else {
                        logger.debug("Listening for new runs failed again", ex);
                    }
                    pause(healthy ? FIRST_RECONNECT_PAUSE : RECONNECT_PAUSE);
                    healthy = false;
                }
            } finally {
                connection = null;
            }
        }
    }

    /** Whether any of the notifications was sent by somebody else than the notifier named {@code ownOrigin}. */
    static boolean fromElsewhere(PGNotification[] notifications, String ownOrigin) {
        for (PGNotification notification : notifications) {
            if (!ownOrigin.equals(notification.getParameter())) {
                return true;
            }
        }
        return false;
    }

    void stop() {
        running = false;
    }

    private void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}

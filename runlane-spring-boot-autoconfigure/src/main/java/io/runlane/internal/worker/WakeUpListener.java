package io.runlane.internal.worker;

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
 * worker in-process already, and waking it again would only cost a claim that finds nothing. Notifications are only a hint: polling stays the source of truth, so a lost connection
 * costs latency, never runs; the listener reconnects after a pause, whatever failed, errors included (S-MO-4).
 */
final class WakeUpListener implements Runnable {

    private static final Log logger = LogFactory.getLog(WakeUpListener.class);

    private static final Duration RECONNECT_PAUSE = Duration.ofSeconds(5);

    private final DataSource dataSource;

    private final String channel;

    private final Runnable wakeUp;

    private final String ownOrigin;

    private volatile boolean running = true;

    private boolean healthy = true;

    private volatile Connection connection;

    WakeUpListener(DataSource dataSource, String schema, String ownOrigin, Runnable wakeUp) {
        this.dataSource = dataSource;
        this.channel = "runlane_" + schema;
        this.ownOrigin = ownOrigin;
        this.wakeUp = wakeUp;
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
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(500);
                    if (notifications != null && fromElsewhere(notifications, ownOrigin)) {
                        wakeUp.run();
                    }
                }
            } catch (SQLException | RuntimeException | Error ex) {
                if (running) {
                    // Warn once per outage; polling keeps working meanwhile.
                    if (healthy) {
                        logger.warn(
                                "Listening for new runs failed; polling continues, reconnecting every "
                                        + RECONNECT_PAUSE,
                                ex);
                    } else {
                        logger.debug("Listening for new runs failed again", ex);
                    }
                    healthy = false;
                    pause();
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

    private void pause() {
        try {
            Thread.sleep(RECONNECT_PAUSE.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}

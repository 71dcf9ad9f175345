package io.runlane.internal.kernel;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Tells a quiet listening connection from a dead one (S-MO-10). Waiting for notifications ends empty whether the
 * server is quiet or has stopped answering (a hung primary keeps its connections open), so a listener that heard
 * nothing for {@code interval} asks the connection for a round trip, bounded by the same time (at least one second),
 * and gives it up when it gets no answer. One check belongs to one listening connection and its thread.
 */
public final class QuietConnectionCheck {

    /** How often a quiet listening connection is checked. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(2);

    private final long intervalNanos;

    private final int timeoutSeconds;

    private long lastAnswer = System.nanoTime();

    public QuietConnectionCheck(Duration interval) {
        this.intervalNanos = interval.toNanos();
        this.timeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, interval.toSeconds()));
    }

    /** The connection answered: a notification arrived. */
    public void answered() {
        lastAnswer = System.nanoTime();
    }

    /** Throws unless the connection was heard from lately or answers a round trip now. */
    public void requireAnswering(Connection connection) throws SQLException {
        if (System.nanoTime() - lastAnswer < intervalNanos) {
            return;
        }
        if (!connection.isValid(timeoutSeconds)) {
            throw new SQLException("The listening connection did not answer within " + timeoutSeconds + " s");
        }
        answered();
    }
}

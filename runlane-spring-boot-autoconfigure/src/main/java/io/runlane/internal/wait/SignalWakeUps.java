package io.runlane.internal.wait;

import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.SqlTemplate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Closes the race between a signal's send and a park on that signal (S-SG-4) without locking the run for the
 * sender. Each side, right after its own transaction commits, runs {@link #WAKE}: "if the run is {@code WAITING} for
 * this name and such a signal is in its mailbox, it is due now". Whichever of the two commits second runs its check
 * on a snapshot that shows both commits, so one of the checks always wakes the run: the send's own statement and the
 * park's mailbox check only see what committed before them, and neither waits for the other. A crash between a
 * commit and its check leaves the run to maintenance ({@code MissedWakeUps}).
 *
 * <p>The check uses a connection of its own: commit callbacks run while the committed transaction's connection is
 * still bound to the thread. Its failure is only logged, for the same reason maintenance exists.
 */
public final class SignalWakeUps {

    private static final Log logger = LogFactory.getLog(SignalWakeUps.class);

    private static final String WAKE = """
            UPDATE {schema}.runs r SET run_at = statement_timestamp()
            WHERE r.id = ? AND r.status = 'WAITING' AND r.awaiting_signal = ? AND r.run_at > statement_timestamp()
              AND EXISTS (SELECT FROM {schema}.run_signals s
                          WHERE s.run_id = r.id AND s.name = r.awaiting_signal AND s.consumed_at IS NULL)
            """;

    private final DataSource dataSource;

    private final DueRunNotifier notifier;

    private final String wake;

    public SignalWakeUps(DataSource dataSource, SqlTemplate sql, DueRunNotifier notifier) {
        this.dataSource = dataSource;
        this.notifier = notifier;
        this.wake = sql.format(WAKE);
    }

    /** Runs {@link #WAKE} once the surrounding transaction committed, or at once without one. */
    public void wakeAfterCommit(UUID runId, String name) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    wake(runId, name);
                }
            });
        } else {
            wake(runId, name);
        }
    }

    private void wake(UUID runId, String name) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(wake)) {
            statement.setObject(1, runId);
            statement.setString(2, name);
            int woken = statement.executeUpdate();
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            if (woken > 0) {
                notifier.runBecameDue();
            }
        } catch (SQLException | RuntimeException ex) {
            logger.warn("Could not wake run " + runId + " for signal '" + name + "'; maintenance will", ex);
        }
    }
}

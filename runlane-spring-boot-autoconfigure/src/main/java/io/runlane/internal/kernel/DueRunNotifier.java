package io.runlane.internal.kernel;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tells workers that a run became due, after the trigger's transaction committed.
 *
 * <p>The local worker is woken in-process at once. Other instances hear a PostgreSQL {@code NOTIFY} on {@code
 * runlane_<schema>}, sent by one daemon thread in its own tiny transaction and coalesced: however many runs are
 * triggered while a notification is being sent, one more follows, and at most one is sent every 5 ms. Its payload
 * names this notifier ({@link #origin()}), so that the local worker, already woken in-process, ignores it. Sending {@code NOTIFY} from the trigger's own
 * transaction would be simpler but PostgreSQL serialises the commits of notifying transactions, which would cap
 * trigger throughput at one commit flush at a time. Notifications are only a hint; polling remains the source of
 * truth.
 *
 * <p>The sending thread survives any failure (a dead one is started again by the next signal) and ends with
 * {@link #stop()}, which the engine calls when it is closed (S-MO-4).
 */
public final class DueRunNotifier {

    private static final Log logger = LogFactory.getLog(DueRunNotifier.class);

    private static final long MIN_INTERVAL_MILLIS = 5;

    private final JdbcTemplate jdbc;

    private final String notify;

    private final String origin = UUID.randomUUID().toString();

    private final AtomicBoolean pending = new AtomicBoolean();

    private final Object signal = new Object();

    private volatile @Nullable Runnable localWakeUp;

    private volatile @Nullable Thread sender;

    private volatile boolean stopped;

    public DueRunNotifier(DataSource dataSource, String schema) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.notify = "SELECT pg_notify('runlane_" + schema + "', '" + origin + "')";
    }

    /** The payload of this notifier's notifications: the worker it wakes in-process ignores them. */
    public String origin() {
        return origin;
    }

    /** Wakes this worker directly too; set while the local worker runs. */
    public void setLocalWakeUp(@Nullable Runnable localWakeUp) {
        this.localWakeUp = localWakeUp;
    }

    /** A run is due now: notify after the current transaction commits, or at once without one. */
    public void runBecameDue() {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    signal();
                }
            });
        } else {
            signal();
        }
    }

    private void signal() {
        Runnable local = localWakeUp;
        if (local != null) {
            local.run();
        }
        if (pending.compareAndSet(false, true)) {
            synchronized (signal) {
                ensureSender();
                signal.notifyAll();
            }
        }
    }

    /** Ends the sending thread for good; later signals only wake the local worker. */
    public void stop() {
        Thread stopping;
        synchronized (signal) {
            stopped = true;
            stopping = sender;
            sender = null;
        }
        if (stopping != null) {
            stopping.interrupt();
            try {
                stopping.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void ensureSender() {
        Thread current = sender;
        if (!stopped && (current == null || !current.isAlive())) {
            CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-notifier-");
            threads.setDaemon(true);
            Thread thread = threads.newThread(this::sendUntilInterrupted);
            sender = thread;
            thread.start();
        }
    }

    private void sendUntilInterrupted() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                synchronized (signal) {
                    while (!pending.get()) {
                        signal.wait();
                    }
                }
                pending.set(false);
                jdbc.query(notify, rs -> null);
                // At most one notification per interval: enough to wake other instances, cheap for the database.
                Thread.sleep(MIN_INTERVAL_MILLIS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException ex) {
                logger.debug("Could not notify workers of a due run; they will find it by polling", ex);
            } catch (Throwable ex) {
                logger.error("Notifying workers of a due run failed; they will find it by polling", ex);
            }
        }
    }
}

package io.runlane.internal.trigger;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Records the statements before which the PostgreSQL driver forced a {@code Sync}, an extra round trip: pgjdbc does
 * so before every execution of a server-prepared statement that it had to describe (one with a parameter of
 * unspecified type, such as a {@code null} bound as {@code Types.OTHER} or as a timestamp) and whose result has a
 * column of unbounded size. It logs that decision at {@code FINEST}, then the statement's {@code Bind}, with the
 * parameters' types, on the same thread.
 */
final class ForcedSyncRecorder extends Handler implements AutoCloseable {

    private static final String FORCING_SYNC = "Forcing Sync";

    private final Logger driver = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");

    private final Level previousLevel = driver.getLevel();

    private final SimpleFormatter formatter = new SimpleFormatter();

    private final Map<Long, Boolean> syncedBefore = new ConcurrentHashMap<>();

    private final List<String> statements = new CopyOnWriteArrayList<>();

    ForcedSyncRecorder() {
        driver.setLevel(Level.FINEST);
        driver.addHandler(this);
    }

    /** The {@code Bind} (or {@code Parse}) messages that followed a forced {@code Sync}. */
    List<String> statementsAfterForcedSync() {
        return List.copyOf(statements);
    }

    @Override
    public void publish(LogRecord record) {
        String message = formatter.formatMessage(record);
        long thread = record.getLongThreadID();
        if (message.startsWith(FORCING_SYNC)) {
            syncedBefore.put(thread, true);
        } else if ((message.contains("FE=> Bind(") || message.contains("FE=> Parse("))
                && syncedBefore.remove(thread) != null) {
            statements.add(message.strip());
        }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        driver.removeHandler(this);
        driver.setLevel(previousLevel);
    }
}

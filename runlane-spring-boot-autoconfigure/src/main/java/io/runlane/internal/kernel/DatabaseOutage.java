package io.runlane.internal.kernel;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Tracks an outage of one of the engine's periodic database loops (polling, heartbeats, maintenance) so that a
 * database that is down, or whose schema is not applied yet, costs one warning per outage instead of a stack trace
 * per poll, and the loop backs off (Spring's {@link ExponentialBackOff}, doubling from the loop's own interval up to
 * {@link #MAX_BACKOFF}) until one line says it recovered. One instance per loop, used by that loop's thread.
 */
public final class DatabaseOutage {

    /** The longest pause between attempts while the database fails. */
    public static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final Log logger;

    private final String activity;

    private final ExponentialBackOff backOff;

    private BackOffExecution execution;

    private @Nullable Instant since;

    private volatile long failures;

    /**
     * @param activity what the loop does, for the log lines ("Claiming runs")
     * @param interval the loop's normal interval; the first pause of an outage
     */
    public DatabaseOutage(Log logger, String activity, Duration interval) {
        this.logger = logger;
        this.activity = activity;
        long first = Math.max(1, Math.min(interval.toMillis(), MAX_BACKOFF.toMillis()));
        this.backOff = new ExponentialBackOff(first, 2.0);
        this.backOff.setMaxInterval(MAX_BACKOFF.toMillis());
        this.execution = backOff.start();
    }

    /**
     * Records a failure: warns on the first of an outage (stack trace at debug level only) and returns how long the
     * loop pauses before its next attempt.
     */
    public Duration failed(Throwable failure) {
        failures++;
        if (since == null) {
            since = Instant.now();
            logger.warn(activity + " failed: " + describe(failure) + "; retrying with backoff (up to every "
                    + MAX_BACKOFF.toSeconds() + "s) and logging once when it recovers");
        }
        if (logger.isDebugEnabled()) {
            logger.debug(activity + " failed (" + failures + " in a row)", failure);
        }
        return Duration.ofMillis(execution.nextBackOff());
    }

    /** Records a success; logs one line if it ends an outage. */
    public void succeeded() {
        if (since != null) {
            logger.info(activity + " recovered after " + failures + " failed attempt(s) in "
                    + Duration.between(since, Instant.now()).toSeconds() + "s");
            since = null;
            failures = 0;
            execution = backOff.start();
        }
    }

    /** Attempts that failed since the last success; read from any thread. */
    public long failuresInARow() {
        return failures;
    }

    /**
     * The failure in one line, with the database's message; missing tables and schemas get a hint, since they mean
     * that the schema was not applied (yet).
     */
    static String describe(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.equals("42P01") || state.equals("3F000")) {
                    return sql.getMessage() + " (Runlane's schema is not applied: see runlane.schema.initialize)";
                }
                return sql.getMessage();
            }
            if (cause.getCause() == null) {
                return cause.toString();
            }
        }
        return failure.toString();
    }
}

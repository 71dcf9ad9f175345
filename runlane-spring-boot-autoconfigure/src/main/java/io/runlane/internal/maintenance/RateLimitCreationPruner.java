package io.runlane.internal.maintenance;

import io.runlane.internal.kernel.SqlTemplate;
import java.sql.Types;
import java.time.Duration;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Deletes the rate limits' recorded creations (S-RT-5) that are older than the longest period any declared task's
 * rate limit has, so that keys nobody triggers any more leave no rows behind. The admissions of a key delete its own
 * expired rows, so the table holds about the limit's worth of rows per key triggered within the longest period; this
 * pass reads that table (it has no index on the creation time alone) in batches of at most {@code batchSize}, each
 * its own auto-commit statement, until a batch deletes fewer rows or the time budget is spent.
 */
final class RateLimitCreationPruner {

    private static final String DELETE_EXPIRED = """
            DELETE FROM {schema}.rate_limit_creations d
            WHERE d.ctid = ANY (ARRAY(
                SELECT c.ctid FROM {schema}.rate_limit_creations c
                WHERE c.environment = :environment
                  AND c.created_at <= statement_timestamp() - :periodMs * interval '1 millisecond'
                LIMIT :batchSize))
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final Duration longestPeriod;

    private final String deleteExpired;

    RateLimitCreationPruner(JdbcClient jdbc, SqlTemplate sql, String environment, Duration longestPeriod) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.longestPeriod = longestPeriod;
        this.deleteExpired = sql.format(DELETE_EXPIRED);
    }

    /** Deletes expired creations in batches until none is left or {@code deadline} ({@link System#nanoTime}). */
    public long pruneExpired(int batchSize, long deadline) {
        long deleted = 0;
        int batch;
        do {
            batch = jdbc.sql(deleteExpired)
                    .param("environment", environment, Types.VARCHAR)
                    .param("periodMs", longestPeriod.toMillis(), Types.BIGINT)
                    .param("batchSize", batchSize, Types.INTEGER)
                    .update();
            deleted += batch;
        } while (batch >= batchSize && System.nanoTime() < deadline);
        return deleted;
    }
}

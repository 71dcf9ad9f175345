package io.runlane.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The effect log: one row per attempt that reached the handler (run id, attempt, instance, start, end, and for the
 * debounced task the number of the payload it ran with), written on a
 * pool of its own that connects to PostgreSQL directly, never through the instance's fault proxy, so the log outlives
 * the attempt's outcome and a partitioned instance still reports what its handler did.
 *
 * <p>A transactional step also marks the moment it wrote its row ({@link #stepWritten}), outside its transaction.
 *
 * <p>Times are the database's: the start is the insert's {@code clock_timestamp()}, a lower bound of when the effect
 * began; the end is that start plus the time the handler measured from before the insert, an upper bound of when the
 * effect ended that no clock skew on the instance can move. Writes are retried through database outages; an insert
 * retried after a lost answer is recognised by its id.
 */
@Component
class EffectLog implements DisposableBean {

    private static final Logger logger = LoggerFactory.getLogger(EffectLog.class);

    private static final Duration GIVE_UP_AFTER = Duration.ofMinutes(3);

    private static final String STARTED = """
            INSERT INTO %s.effects (id, run_id, attempt, instance, scenario, planned_ms, payload_seq, started_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, clock_timestamp())
            ON CONFLICT (id) DO NOTHING
            """;

    private static final String ENDED = """
            UPDATE %s.effects SET ended_at = started_at + ? * interval '1 microsecond' WHERE id = ?
            """;

    private static final String STEP_WRITTEN = """
            UPDATE %s.effects SET step_written_at = clock_timestamp() WHERE id = ?
            """;

    private final HikariDataSource dataSource;

    private final String instance;

    private final String started;

    private final String ended;

    private final String stepWritten;

    EffectLog(
            @Value("${faults.effects.url}") String url,
            @Value("${faults.effects.schema}") String schema,
            @Value("${faults.instance}") String instance) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("effects");
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(2000);
        config.setInitializationFailTimeout(-1);
        this.dataSource = new HikariDataSource(config);
        this.instance = instance;
        this.started = STARTED.formatted(schema);
        this.ended = ENDED.formatted(schema);
        this.stepWritten = STEP_WRITTEN.formatted(schema);
    }

    /** Records that an attempt's handler starts its effect; returns the effect's id. */
    UUID started(UUID runId, int attempt, String scenario, long plannedMillis) {
        return started(runId, attempt, scenario, plannedMillis, null);
    }

    /**
     * Records that an attempt's handler starts its effect with the payload numbered {@code payloadSeq} ({@link
     * DebounceTask.Payload#seq()}), {@code null} for a payload without a number; returns the effect's id.
     */
    UUID started(UUID runId, int attempt, String scenario, long plannedMillis, @Nullable Long payloadSeq) {
        UUID id = UUID.randomUUID();
        write(started, statement -> {
            statement.setObject(1, id);
            statement.setObject(2, runId);
            statement.setInt(3, attempt);
            statement.setString(4, instance);
            statement.setString(5, scenario);
            statement.setLong(6, plannedMillis);
            statement.setObject(7, payloadSeq, Types.BIGINT);
        });
        return id;
    }

    /** Records that the effect {@code id}, measured from {@code startNanos}, is over. */
    void ended(UUID id, long startNanos) {
        long micros = (System.nanoTime() - startNanos) / 1000;
        write(ended, statement -> {
            statement.setLong(1, micros);
            statement.setObject(2, id);
        });
    }

    /**
     * Records that the effect {@code id}'s transactional step wrote its row, which its transaction has not committed
     * yet: committed here at once, so the mark survives the step's rollback.
     */
    void stepWritten(UUID id) {
        write(stepWritten, statement -> statement.setObject(1, id));
    }

    private void write(String sql, Binder binder) {
        long deadline = System.nanoTime() + GIVE_UP_AFTER.toNanos();
        while (true) {
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement statement = connection.prepareStatement(sql)) {
                binder.bind(statement);
                statement.executeUpdate();
                return;
            } catch (SQLException ex) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The effect log stayed unwritable", ex);
                }
                logger.info("Effect log write failed, retrying: {}", ex.getMessage());
                pause();
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while writing the effect log", ex);
        }
    }

    @Override
    public void destroy() {
        dataSource.close();
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }
}

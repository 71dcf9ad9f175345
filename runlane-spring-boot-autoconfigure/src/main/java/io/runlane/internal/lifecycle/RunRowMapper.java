package io.runlane.internal.lifecycle;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.RowMapper;

/**
 * Maps a row of {@code runs} (selected as {@code r.*} or {@code RETURNING *}) to a {@link Run}.
 *
 * <p>{@link Run#spentAttempts()} (S-EX-34) comes from the row's counters: {@code attempts} counts every claim whose
 * handler started and {@code releases} every attempt that ended by parking the run (a release or a durable wait), as
 * the retry policy counts them ({@link ClaimedRun#spentAttempts()}). A run parked after it started ({@code RELEASED},
 * or {@code WAITING} with attempts; a run waiting for a predecessor never started) counts the attempt it will
 * resume: its next claim continues it, and charges it to the budget then.
 */
public final class RunRowMapper implements RowMapper<Run> {

    public static final RunRowMapper INSTANCE = new RunRowMapper(false);

    /**
     * Maps a run its admission statement has just inserted due at once, with its creation, update and due times all
     * the statement's time ({@code statement_timestamp()}): the three are read once, from {@code created_at}. The
     * driver reads each time through an {@code OffsetDateTime} of its own (some 250 bytes), and every trigger that
     * starts its run at once (S-EX-36) maps such a row.
     */
    public static final RunRowMapper INSERTED_DUE_NOW = new RunRowMapper(true);

    /** Whether {@code updated_at} and {@code run_at} are {@code created_at}, which is read alone. */
    private final boolean dueAtCreation;

    private RunRowMapper(boolean dueAtCreation) {
        this.dueAtCreation = dueAtCreation;
    }

    @Override
    public Run mapRow(ResultSet rs, int rowNum) throws SQLException {
        String failureCode = rs.getString("failure_code");
        RunFailure failure = failureCode == null
                ? null
                : new RunFailure(failureCode, rs.getString("failure_class"), rs.getString("failure_message"));
        long ttlMillis = rs.getLong("idempotency_key_ttl_ms");
        IdempotencyKeyTtl ttl = rs.wasNull()
                ? null
                : ttlMillis == 0 ? IdempotencyKeyTtl.active() : IdempotencyKeyTtl.of(Duration.ofMillis(ttlMillis));
        RunStatus status = RunStatus.valueOf(rs.getString("status"));
        Instant createdAt = instant(rs, "created_at");
        return new Run(
                rs.getObject("id", UUID.class),
                rs.getString("task_id"),
                rs.getString("queue"),
                status,
                rs.getString("idempotency_key"),
                rs.getString("singleton_key"),
                rs.getInt("attempts"),
                rs.getInt("max_attempts"),
                createdAt,
                dueAtCreation ? createdAt : instant(rs, "updated_at"),
                dueAtCreation ? createdAt : instant(rs, "run_at"),
                instant(rs, "finished_at"),
                failure,
                rs.getString("payload"),
                rs.getObject("source_run_id", UUID.class),
                rs.getString("concurrency_key"),
                ttl,
                rs.getString("source_type"),
                rs.getString("result"),
                spentAttempts(rs, status),
                rs.getInt("priority"),
                rs.getString("debounce_key"),
                rs.getString("schedule_id"));
    }

    private static int spentAttempts(ResultSet rs, RunStatus status) throws SQLException {
        int attempts = rs.getInt("attempts");
        boolean parked = attempts > 0 && (status == RunStatus.WAITING || status == RunStatus.RELEASED);
        return attempts - rs.getInt("releases") + (parked ? 1 : 0);
    }

    public static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}

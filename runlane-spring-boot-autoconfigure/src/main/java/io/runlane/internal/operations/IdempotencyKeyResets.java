package io.runlane.internal.operations;

import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextSanitizer;
import io.runlane.internal.lifecycle.KeyOwnership;
import java.sql.Types;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Operator reset of a retained idempotency owner (S-IK-8), in one statement: a terminal holder is released ({@code
 * idempotency_key_released}, which takes it out of the owners' index), an audit event is appended to it when its
 * retention was still running, and an active owner is reported instead of touched. A run deleted by hand took its key
 * with it, so there is nothing to reset for it (S-IK-13).
 */
public final class IdempotencyKeyResets {

    /** What a reset found. */
    public record Outcome(boolean reset, @Nullable UUID activeOwner) {}

    private static final String RESET = """
            WITH released AS (
                UPDATE {schema}.runs r SET idempotency_key_released = true,
                    last_event_seq = r.last_event_seq + CASE WHEN %2$s > statement_timestamp() THEN 1 ELSE 0 END
                WHERE %1$s
                  AND r.finished_at IS NOT NULL
                RETURNING r.id, r.last_event_seq, r.status, %2$s > statement_timestamp() AS was_retained
            ), reset_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'IDEMPOTENCY_KEY_RESET', status, statement_timestamp(), :actor,
                       'idempotency key reset by an operator'
                FROM released WHERE was_retained
            )
            SELECT coalesce((SELECT was_retained FROM released), false) AS reset,
                   (SELECT r.id FROM {schema}.runs r WHERE %1$s
                      AND r.finished_at IS NULL) AS active_owner
            """.formatted(
                    KeyOwnership.keyIs("r") + "\n AND " + KeyOwnership.holds("r"), KeyOwnership.retainedUntil("r"));

    private final JdbcClient jdbc;

    private final String environment;

    private final String reset;

    public IdempotencyKeyResets(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.reset = sql.format(RESET);
    }

    public Outcome reset(String taskId, String idempotencyKey, String actor) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("taskId", taskId, Types.VARCHAR)
                .addValue("idempotencyKey", idempotencyKey, Types.VARCHAR)
                .addValue("actor", TextSanitizer.storable(actor), Types.VARCHAR);
        return jdbc.sql(reset)
                .paramSource(params)
                .query((rs, rowNum) -> new Outcome(rs.getBoolean("reset"), rs.getObject("active_owner", UUID.class)))
                .single();
    }
}

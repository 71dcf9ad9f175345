package io.runlane.internal.jdbc;

import java.sql.Types;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Operator reset of a retained idempotency owner (S-IK-8), in one statement: the row is deleted only if the owner
 * is terminal, an audit event is appended to the owner, and an active owner is reported instead of touched. A row
 * whose run no longer exists (deleted by hand) is removed as well and counts as reset (S-IK-13); it has no run to
 * take the audit event. As in the take-over of {@link RunAdmissions}, the orphan is identified by its run id in the
 * statement's snapshot, so a row that a concurrent trigger took over meanwhile is left alone.
 */
public final class IdempotencyKeyResets {

    /** What a reset found. */
    public record Outcome(boolean reset, @Nullable UUID activeOwner) {}

    private static final String RESET = """
            WITH orphan AS (
                SELECT k.run_id FROM {schema}.idempotency_keys k
                WHERE k.environment = :environment AND k.task_id = :taskId AND k.idempotency_key = :idempotencyKey
                  AND NOT EXISTS (SELECT FROM {schema}.runs r WHERE r.id = k.run_id)
            ), removed AS (
                DELETE FROM {schema}.idempotency_keys
                WHERE environment = :environment AND task_id = :taskId AND idempotency_key = :idempotencyKey
                  AND (retained_until IS NOT NULL OR run_id = (SELECT run_id FROM orphan))
                RETURNING run_id, retained_until > statement_timestamp() AS was_retained,
                          run_id = (SELECT run_id FROM orphan) AS was_orphaned
            ), noted AS (
                UPDATE {schema}.runs r SET last_event_seq = r.last_event_seq + 1
                FROM removed WHERE r.id = removed.run_id AND removed.was_retained
                RETURNING r.id, r.last_event_seq, r.status
            ), reset_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'IDEMPOTENCY_KEY_RESET', status, statement_timestamp(), :actor,
                       'idempotency key reset by an operator'
                FROM noted
            )
            SELECT coalesce((SELECT was_retained OR was_orphaned FROM removed), false) AS reset,
                   (SELECT k.run_id FROM {schema}.idempotency_keys k
                    WHERE k.environment = :environment AND k.task_id = :taskId AND k.idempotency_key = :idempotencyKey
                      AND k.retained_until IS NULL AND k.run_id IS DISTINCT FROM (SELECT run_id FROM orphan))
                   AS active_owner
            """;

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

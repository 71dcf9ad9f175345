package io.runlane.internal.signal;

import io.runlane.internal.kernel.SqlTemplate;
import java.sql.Types;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Consumes signals for an attempt's {@code awaitSignal} (S-SG-4), in one statement, its own short transaction,
 * fenced by the attempt's claim like a step's recording (S-ST-3):
 *
 * <ol>
 *   <li>lock the run's row, only while the attempt holds it (running under its fencing token);
 *   <li>pick the oldest unconsumed signal of the name ({@code ORDER BY sent_at, id}, first in first out) and mark it
 *       consumed by the step;
 *   <li>record the step with the signal's id and payload as its result, and append {@code SIGNAL_CONSUMED}.
 * </ol>
 *
 * The consumption and the step's record commit together or not at all: a crash right after leaves a recorded step
 * that every replay answers from, and a signal is never consumed without its record, so none is consumed twice and
 * none is lost. The step's insert has no {@code ON CONFLICT}: if the step were somehow recorded already, the whole
 * statement fails rather than consume a signal nobody will see.
 */
public final class SignalInbox {

    private static final String CONSUME = """
            WITH held AS (
                SELECT id FROM {schema}.runs
                WHERE id = :runId AND fencing_token = :token AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
                FOR UPDATE
            ), oldest AS (
                SELECT s.id FROM {schema}.run_signals s JOIN held ON s.run_id = held.id
                WHERE s.name = :signalName AND s.consumed_at IS NULL
                ORDER BY s.sent_at, s.id
                LIMIT 1
                FOR UPDATE OF s SKIP LOCKED
            ), consumed AS (
                UPDATE {schema}.run_signals s SET consumed_at = statement_timestamp(), consumed_by_step = :stepId
                FROM oldest WHERE s.id = oldest.id
                RETURNING s.id, s.run_id, s.payload
            ), recorded AS (
                INSERT INTO {schema}.run_steps (run_id, name, occurrence, step_id, result, completed_at)
                SELECT run_id, :name, :occurrence, :stepId, jsonb_build_object('signalId', id, 'payload', payload),
                       statement_timestamp()
                FROM consumed
                RETURNING run_id, result
            ), bumped AS (
                UPDATE {schema}.runs r SET last_event_seq = r.last_event_seq + 1
                FROM recorded WHERE r.id = recorded.run_id
                RETURNING r.id, r.last_event_seq, r.status
            ), consumed_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT b.id, b.last_event_seq, 'SIGNAL_CONSUMED', b.status, statement_timestamp(), :actor,
                       :signalName || ' ' || c.id
                FROM bumped b CROSS JOIN consumed c
            )
            SELECT (SELECT count(*) FROM held) AS held, (SELECT result::text FROM recorded) AS result
            """;

    /** What a consumption found: whether the attempt still holds the run, and the recorded result, if any. */
    public record Consumption(boolean held, @Nullable String resultJson) {}

    private final JdbcClient jdbc;

    private final String consume;

    public SignalInbox(JdbcClient jdbc, SqlTemplate sql) {
        this.jdbc = jdbc;
        this.consume = sql.format(CONSUME);
    }

    /**
     * Consumes the oldest unconsumed signal named {@code signalName} for the attempt holding {@code token}, recording
     * it as the step ({@code stepName}, {@code occurrence}).
     */
    public Consumption consumeIfHeld(
            UUID runId, long token, String actor, String signalName, String stepName, int occurrence, String stepId) {
        return jdbc.sql(consume)
                .paramSource(new MapSqlParameterSource()
                        .addValue("runId", runId, Types.OTHER)
                        .addValue("token", token, Types.BIGINT)
                        .addValue("actor", actor, Types.VARCHAR)
                        .addValue("signalName", signalName, Types.VARCHAR)
                        .addValue("name", stepName, Types.VARCHAR)
                        .addValue("occurrence", occurrence, Types.INTEGER)
                        .addValue("stepId", stepId, Types.VARCHAR))
                .query((rs, rowNum) -> new Consumption(rs.getLong("held") > 0, rs.getString("result")))
                .single();
    }
}

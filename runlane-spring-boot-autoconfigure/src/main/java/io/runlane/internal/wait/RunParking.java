package io.runlane.internal.wait;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.kernel.TextParameters;
import io.runlane.internal.lifecycle.RunRowMapper;
import io.runlane.internal.lifecycle.TransitionSql;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Parks a run as {@code WAITING} when its handler has to wait (S-ST-7, S-RS-4), in one statement fenced by the
 * attempt's claim like every attempt outcome (S-EX-3):
 *
 * <ol>
 *   <li>the run leaves {@code RUNNING} for {@code WAITING}: the lease is cleared (so it holds no slot and no queue
 *       capacity, which count only running runs, S-QC-2) while its keys stay, since {@code WAITING} is active;
 *   <li>{@code run_at} is the wake-up time, and the release count grows so that waiting spends no retry budget
 *       (the accounting of a release, {@link TransitionSql#parking});
 *   <li>when waiting for another run, the statement reads that run's row {@code FOR SHARE}: if it already ended
 *       (or its ending statement is committing, which the lock waits for), {@code run_at} is now and the run is due
 *       at once. This closes the gap between the handler's read and the park that the ending statement's own
 *       wake-up ({@code TransitionSql}) cannot see;
 *   <li>when waiting for a signal, the statement checks the run's mailbox: a signal of that name that arrived
 *       after the handler looked is already there, and the run is due at once. For a send that commits after this
 *       statement's snapshot, the send and the park both check again after their commits ({@link SignalWakeUps});
 *   <li>a run whose cancellation was requested does not wait: it ends {@code CANCELLED} (S-CA-2).
 * </ol>
 */
public final class RunParking {

    private static final String PARK = TransitionSql.parking("'WAITING'", """
            CASE WHEN coalesce((SELECT a.finished_at IS NOT NULL FROM {schema}.runs a
                                WHERE a.id = cast(:awaitingRunId AS uuid) FOR SHARE), false)
                   OR EXISTS (SELECT FROM {schema}.run_signals s
                              WHERE s.run_id = :id AND s.name = cast(:awaitingSignal AS text) AND s.consumed_at IS NULL)
                 THEN statement_timestamp()
                 ELSE greatest(:wakeAt, statement_timestamp()) END""", """
            awaiting_run_id = CASE WHEN status = 'RUNNING' THEN cast(:awaitingRunId AS uuid) END,
            awaiting_signal = CASE WHEN status = 'RUNNING' THEN cast(:awaitingSignal AS text) END,""", ":detail");

    private final JdbcClient jdbc;

    private final String park;

    private final DueRunNotifier notifier;

    private final SignalWakeUps signalWakeUps;

    public RunParking(JdbcClient jdbc, SqlTemplate sql, DueRunNotifier notifier, SignalWakeUps signalWakeUps) {
        this.signalWakeUps = signalWakeUps;
        this.jdbc = jdbc;
        this.park = sql.format(PARK);
        this.notifier = notifier;
    }

    /**
     * Parks the run held by the attempt with {@code token}. Empty when the attempt no longer holds it. A run due at
     * once (its awaited run already ended) wakes the workers after the surrounding transaction commits.
     */
    public Optional<Run> parkIfHeld(UUID runId, long token, String worker, WaitRequest request) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("id", runId, Types.OTHER)
                .addValue("token", token, Types.BIGINT)
                .addValue("actor", worker, Types.VARCHAR)
                .addValue("awaitingRunId", TextParameters.uuid(request.awaitingRunId()), Types.VARCHAR)
                .addValue("awaitingSignal", request.awaitingSignal(), Types.VARCHAR)
                .addValue(
                        "wakeAt",
                        OffsetDateTime.ofInstant(request.wakeAt(), ZoneOffset.UTC),
                        Types.TIMESTAMP_WITH_TIMEZONE)
                .addValue("detail", request.reason(), Types.VARCHAR);
        Optional<Run> parked =
                jdbc.sql(park).paramSource(params).query(RunRowMapper.INSTANCE).optional();
        parked.filter(run -> run.runAt() != null && !run.runAt().isAfter(run.updatedAt()))
                .ifPresent(run -> notifier.runBecameDue());
        String signal = request.awaitingSignal();
        if (signal != null
                && parked.filter(run -> run.status() == RunStatus.WAITING).isPresent()) {
            signalWakeUps.wakeAfterCommit(runId, signal);
        }
        return parked;
    }
}

package io.runlane.internal.wait;

import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.TransitionSql;
import java.sql.Types;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Maintenance's safety net for waits on other runs and on signals (S-RS-4, S-SG-4): wakes {@code WAITING} runs
 * whose awaited run is already terminal, or whose awaited signal is already in their mailbox.
 *
 * <p>A run that parks on another run is woken by the statement that ends that run when it sees the park ({@code
 * TransitionSql}), by its own parking statement when that run already ended ({@link RunParking}), and otherwise by
 * the instance that recorded the end, right after that commit ({@code RunEndings}): the ending statement may have
 * waited for the park's share lock on a snapshot taken before the park committed, which is why the third is needed.
 * Only a crash of that instance between the commit and its wake-up statement leaves a run parked until its
 * deadline; this job wakes it within one recovery interval instead. It also wakes a successor whose predecessor's
 * ended attempt kept its lease (S-CP-3, S-CA-5) once that lease expired without its handler's return being recorded
 * (its worker stopped heartbeating). A signal's send has the same shape: its
 * statement wakes a run it sees waiting, and a second statement after its commit wakes one that parked meanwhile
 * ({@code SignalMailbox}); this job covers a crash between the two. Bounded batches, {@code SKIP LOCKED}, safe on
 * every instance at once.
 */
public final class MissedWakeUps {

    private static final String WAKE = """
            WITH stranded AS (
                SELECT w.id FROM {schema}.runs w
                WHERE w.status = 'WAITING' AND w.environment = :environment AND w.run_at > statement_timestamp()
                  AND (w.awaiting_run_id IS NOT NULL AND EXISTS (
                           SELECT FROM {schema}.runs a
                           WHERE a.id = w.awaiting_run_id AND a.finished_at IS NOT NULL AND %s)
                       OR w.awaiting_signal IS NOT NULL AND EXISTS (
                           SELECT FROM {schema}.run_signals s
                           WHERE s.run_id = w.id AND s.name = w.awaiting_signal AND s.consumed_at IS NULL))
                LIMIT :batchSize
                FOR UPDATE SKIP LOCKED
            )
            UPDATE {schema}.runs w SET %s
            FROM stranded s WHERE w.id = s.id AND w.status = 'WAITING'
            """.formatted(TransitionSql.attemptGone("a"), TransitionSql.WAKE);

    private final JdbcClient jdbc;

    private final String wake;

    private final String environment;

    private final DueRunNotifier notifier;

    public MissedWakeUps(JdbcClient jdbc, SqlTemplate sql, String environment, DueRunNotifier notifier) {
        this.jdbc = jdbc;
        this.wake = sql.format(WAKE);
        this.environment = environment;
        this.notifier = notifier;
    }

    /** Wakes one batch; returns how many runs it woke. */
    public int wakeStranded(int batchSize) {
        int woken = jdbc.sql(wake)
                .paramSource(new MapSqlParameterSource()
                        .addValue("environment", environment, Types.VARCHAR)
                        .addValue("batchSize", batchSize, Types.INTEGER))
                .update();
        if (woken > 0) {
            notifier.runBecameDue();
        }
        return woken;
    }
}

package io.runlane.autoconfigure.console;

import io.runlane.Page;
import io.runlane.RunAttempt;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunSignal;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.internal.kernel.SqlTemplate;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A run's events, attempts, steps and signals a page at a time, newest first (S-CO-10). Every page is one statement
 * that reads at most its limit (plus one, to tell whether more follow) from an index, starting after the cursor's key
 * in the list's own order: the event sequence ({@code run_events} primary key), the claim's event sequence ({@code
 * run_events_attempts_idx}), the step's completion ({@code run_steps_completed_idx}) and the signal's sending ({@code
 * run_signals_run_idx}). A run with thousands of steps or signals costs a page no more than one with a few.
 *
 * <p>Cursors are opaque to clients: base64url of a versioned key. A first page starts after a key past every row.
 * Attempts are derived from events like {@link io.runlane.RunOperations#attempts}: a {@code CLAIMED} event opens one,
 * the next event of {@link #ATTEMPT_EVENT_TYPES} closes it, and a claim {@code HANDED_BACK} is none (S-EX-17); the
 * steps, signal consumptions and cancellation requests recorded meanwhile do not end it. An attempt claimed after a
 * parking ({@code RELEASED}, {@code WAITING}) is a resumption (S-EX-34). Attempts are numbered down from the run's
 * attempt count, which counts exactly the claims not handed back.
 */
final class ConsoleHistory {

    /** How many items of each list a run's detail carries, and a page by default. */
    static final int DEFAULT_LIMIT = 50;

    /** The largest page a request gets; larger limits are clamped to it. */
    static final int MAX_LIMIT = 200;

    /** Steps and signals are counted up to this many, so that counting them is bounded too. */
    static final int COUNT_CAP = 10_000;

    /**
     * The types that open, undo or end an attempt: {@code CLAIMED}, {@code HANDED_BACK} and {@link
     * io.runlane.internal.operations.DefaultRunOperations#ATTEMPT_ENDINGS}, written as the predicate of {@code
     * run_events_attempts_idx}, which therefore skips the steps and signal consumptions an attempt records in between.
     */
    static final String ATTEMPT_EVENT_TYPES =
            "('CLAIMED', 'HANDED_BACK', 'SUCCEEDED', 'RETRY_SCHEDULED', 'RELEASED', 'FAILED', 'CANCELLED',"
                    + " 'LEASE_EXPIRED', 'WAITING')";

    /**
     * The list sizes: events and attempts from the run's row; steps and signals counted up to the cap along the index
     * a page reads, in its order, so that the count stops at the cap instead of collecting every entry of the run.
     */
    static final String TOTALS = """
            SELECT r.last_event_seq, r.attempts, r.debounce_folds,
                   r.debounce_started_at IS NOT NULL AND r.status IN ('SCHEDULED', 'QUEUED') AND r.fencing_token = 0
                       AS debounce_pending,
                   (SELECT count(*) FROM (SELECT FROM {schema}.run_steps s WHERE s.run_id = :runId
                                          ORDER BY s.completed_at DESC LIMIT :cap) s) AS steps,
                   (SELECT count(*) FROM (SELECT FROM {schema}.run_signals g WHERE g.run_id = :runId
                                          ORDER BY g.sent_at DESC LIMIT :cap) g) AS signals
            FROM {schema}.runs r
            WHERE r.id = :runId AND r.environment = :environment
            """;

    /**
     * S-RL-2: events before a sequence number, backwards along the primary key. Event 1 is read off the run's row
     * unless it is stored (runs created before it was derived).
     */
    static final String EVENTS = """
            SELECT seq, type, status, created_at, actor, detail FROM (
                (SELECT e.seq, e.type, e.status, e.created_at, e.actor, e.detail
                 FROM {schema}.run_events e
                 WHERE e.run_id = :runId AND e.seq < :before
                 ORDER BY e.seq DESC
                 LIMIT :limit)
                UNION ALL
                SELECT 1, 'CREATED', CASE WHEN r.created_scheduled THEN 'SCHEDULED' ELSE 'QUEUED' END,
                       r.created_at, 'runlane', NULL
                FROM {schema}.runs r
                WHERE r.id = :runId AND :before > 1
                  AND NOT EXISTS (SELECT FROM {schema}.run_events e WHERE e.run_id = r.id AND e.seq = 1)
            ) page
            WHERE EXISTS (SELECT FROM {schema}.runs r WHERE r.id = :runId AND r.environment = :environment)
            ORDER BY seq DESC
            LIMIT :limit
            """;

    /**
     * S-EX-17, S-EX-34: claims before a sequence number with the event that followed each among the attempt events
     * (the one that ended it) and the attempt ending that preceded it ({@code p}): a parking makes the claim a
     * resumption, provided an attempt event precedes it ({@code q}); a {@code WAITING} event before every claim is a
     * successor's wait for its predecessor, which no attempt ended. All of them come from {@code
     * run_events_attempts_idx}, with the run's attempt count in the same snapshot to number the first page.
     * The claims are selected by {@code :runId} rather than {@code r.id} so that the planner estimates them from the
     * run's own statistics: for a run with many attempts, a scan that stops at the limit.
     */
    static final String ATTEMPTS = """
            SELECT r.attempts AS run_attempts, c.seq, c.actor, c.created_at,
                   e.type AS ended_by, e.status AS outcome, e.created_at AS ended_at, e.detail,
                   q.parked IS NOT NULL AS resumption
            FROM {schema}.runs r
            CROSS JOIN (
                SELECT seq, actor, created_at FROM {schema}.run_events
                WHERE run_id = :runId AND seq < :before AND type IN %1$s AND type = 'CLAIMED'
                ORDER BY seq DESC
                LIMIT :limit
            ) c
            LEFT JOIN LATERAL (
                SELECT type, status, created_at, detail FROM {schema}.run_events
                WHERE run_id = :runId AND seq > c.seq AND type IN %1$s
                ORDER BY seq
                LIMIT 1
            ) e ON true
            LEFT JOIN LATERAL (
                SELECT seq, type FROM {schema}.run_events
                WHERE run_id = :runId AND seq < c.seq AND type IN %1$s AND type NOT IN ('CLAIMED', 'HANDED_BACK')
                ORDER BY seq DESC
                LIMIT 1
            ) p ON true
            LEFT JOIN LATERAL (
                SELECT true AS parked FROM {schema}.run_events
                WHERE run_id = :runId AND seq < p.seq AND type IN %1$s AND p.type IN ('RELEASED', 'WAITING')
                ORDER BY seq DESC
                LIMIT 1
            ) q ON true
            WHERE r.id = :runId AND r.environment = :environment
            ORDER BY c.seq DESC
            """.formatted(ATTEMPT_EVENT_TYPES);

    /**
     * S-ST-6: steps completed before a key, backwards along {@code run_steps_completed_idx}, each with whether it is
     * a sleep (S-CO-11): a step that parked the run with a {@code WAITING} event {@code sleep '<name>' until ...}, read
     * along {@code run_events_attempts_idx} for the page's rows only. Await steps are told by their prefixes.
     */
    static final String STEPS = """
            SELECT s.name, s.occurrence, s.step_id, s.completed_at, s.result::text AS result,
                   (NOT starts_with(s.name, 'awaitSignal.') AND NOT starts_with(s.name, 'awaitResult.')
                    AND (SELECT true FROM {schema}.run_events e
                         WHERE e.run_id = :runId AND e.type = 'WAITING'
                           AND starts_with(e.detail, 'sleep ''' || s.name || ''' until ')
                         ORDER BY e.seq DESC LIMIT 1) IS NOT NULL) AS sleep
            FROM {schema}.run_steps s
            WHERE s.run_id = :runId
              AND (s.completed_at, s.name, s.occurrence) < (cast(:completedAt AS timestamptz), :name, :occurrence)
              AND EXISTS (SELECT FROM {schema}.runs r WHERE r.id = :runId AND r.environment = :environment)
            ORDER BY s.completed_at DESC, s.name DESC, s.occurrence DESC
            LIMIT :limit
            """;

    /**
     * S-SG-5: signals sent before a key, backwards along {@code run_signals_run_idx}; signals sent at one instant
     * (separate statements, so rarely any) are ordered by id.
     */
    static final String SIGNALS = """
            SELECT s.id, s.name, s.payload::text AS payload, s.sent_at, s.consumed_at, s.deduplication_key
            FROM {schema}.run_signals s
            WHERE s.run_id = :runId
              AND (s.sent_at, s.id) < (cast(:sentAt AS timestamptz), :id)
              AND EXISTS (SELECT FROM {schema}.runs r WHERE r.id = :runId AND r.environment = :environment)
            ORDER BY s.sent_at DESC, s.id DESC
            LIMIT :limit
            """;

    private static final String END_OF_TIME = "infinity";

    private static final UUID LAST_ID = new UUID(-1L, -1L);

    private final JdbcClient jdbc;

    private final String environment;

    private final String totals;

    private final String events;

    private final String attempts;

    private final String steps;

    private final String signals;

    ConsoleHistory(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.totals = sql.format(TOTALS);
        this.events = sql.format(EVENTS);
        this.attempts = sql.format(ATTEMPTS);
        this.steps = sql.format(STEPS);
        this.signals = sql.format(SIGNALS);
    }

    /** The size of each list, or empty when the run is not one of this environment. */
    Optional<Totals> totals(UUID runId) {
        return jdbc.sql(totals)
                .paramSource(run(runId).addValue("cap", COUNT_CAP + 1, Types.INTEGER))
                .query((rs, rowNum) -> new Totals(
                        rs.getLong("last_event_seq"),
                        rs.getLong("attempts"),
                        rs.getLong("steps"),
                        rs.getLong("signals"),
                        rs.getBoolean("debounce_pending") ? rs.getInt("debounce_folds") : null))
                .optional();
    }

    /** Events newest first, from the cursor on. */
    Page<RunEvent> events(UUID runId, @Nullable String cursor, int limit) {
        int before = (cursor == null)
                ? Integer.MAX_VALUE
                : HistoryCursor.decode(cursor, "e1").intPart(0);
        List<RunEvent> page = jdbc.sql(events)
                .paramSource(
                        run(runId).addValue("before", before, Types.INTEGER).addValue("limit", limit, Types.INTEGER))
                .query((rs, rowNum) -> new RunEvent(
                        runId,
                        rs.getInt("seq"),
                        RunEventType.valueOf(rs.getString("type")),
                        RunStatus.valueOf(rs.getString("status")),
                        instant(rs, "created_at"),
                        rs.getString("actor"),
                        rs.getString("detail")))
                .list();
        int oldest = page.isEmpty() ? 1 : page.get(page.size() - 1).sequence();
        return new Page<>(page, (page.size() == limit && oldest > 1) ? HistoryCursor.encode("e1", oldest) : null);
    }

    /** Attempts newest first, from the cursor on; numbered like the run's attempt count. */
    Page<RunAttempt> attempts(UUID runId, @Nullable String cursor, int limit) {
        HistoryCursor after = (cursor == null) ? null : HistoryCursor.decode(cursor, "a1");
        List<Claim> claims = jdbc.sql(attempts)
                .paramSource(run(runId)
                        .addValue("before", (after == null) ? Integer.MAX_VALUE : after.intPart(0), Types.INTEGER)
                        .addValue("limit", limit + 1, Types.INTEGER))
                .query(ConsoleHistory::claim)
                .list();
        int number = (after != null)
                ? after.intPart(1)
                : claims.isEmpty() ? 0 : claims.get(0).runAttempts();
        List<RunAttempt> page = new ArrayList<>();
        for (Claim claim : claims.subList(0, Math.min(limit, claims.size()))) {
            if (claim.endedBy() != RunEventType.HANDED_BACK) {
                page.add(claim.attempt(runId, number--));
            }
        }
        boolean more = claims.size() > limit && number > 0;
        return new Page<>(
                page, more ? HistoryCursor.encode("a1", claims.get(limit - 1).seq(), number) : null);
    }

    /** Steps newest first, from the cursor on. */
    Page<ConsoleStep> steps(UUID runId, @Nullable String cursor, int limit) {
        HistoryCursor after = (cursor == null) ? null : HistoryCursor.decode(cursor, "s1");
        List<ConsoleStep> page = jdbc.sql(steps)
                .paramSource(run(runId)
                        .addValue("completedAt", (after == null) ? END_OF_TIME : after.instantPart(0), Types.VARCHAR)
                        .addValue("occurrence", (after == null) ? 0 : after.intPart(1), Types.INTEGER)
                        .addValue("name", (after == null) ? "" : after.rest(2), Types.VARCHAR)
                        .addValue("limit", limit + 1, Types.INTEGER))
                .query((rs, rowNum) -> ConsoleStep.of(
                        new RunStep(
                                rs.getString("name"),
                                rs.getInt("occurrence"),
                                rs.getString("step_id"),
                                instant(rs, "completed_at"),
                                rs.getString("result")),
                        rs.getBoolean("sleep")))
                .list();
        if (page.size() <= limit) {
            return new Page<>(page, null);
        }
        ConsoleStep last = page.get(limit - 1);
        return new Page<>(
                page.subList(0, limit),
                HistoryCursor.encode("s1", micros(last.completedAt()), last.occurrence(), last.name()));
    }

    /** Signals newest first, from the cursor on. */
    Page<RunSignal> signals(UUID runId, @Nullable String cursor, int limit) {
        HistoryCursor after = (cursor == null) ? null : HistoryCursor.decode(cursor, "g1");
        List<RunSignal> page = jdbc.sql(signals)
                .paramSource(run(runId)
                        .addValue("sentAt", (after == null) ? END_OF_TIME : after.instantPart(0), Types.VARCHAR)
                        .addValue("id", (after == null) ? LAST_ID : after.uuidPart(1), Types.OTHER)
                        .addValue("limit", limit + 1, Types.INTEGER))
                .query((rs, rowNum) -> {
                    OffsetDateTime consumedAt = rs.getObject("consumed_at", OffsetDateTime.class);
                    return new RunSignal(
                            rs.getObject("id", UUID.class),
                            rs.getString("name"),
                            rs.getString("payload"),
                            instant(rs, "sent_at"),
                            (consumedAt == null) ? null : consumedAt.toInstant(),
                            rs.getString("deduplication_key"));
                })
                .list();
        if (page.size() <= limit) {
            return new Page<>(page, null);
        }
        RunSignal last = page.get(limit - 1);
        return new Page<>(page.subList(0, limit), HistoryCursor.encode("g1", micros(last.sentAt()), last.id()));
    }

    /** A requested page size: {@link #DEFAULT_LIMIT} when none is given, clamped to 1..{@link #MAX_LIMIT}. */
    static int clamp(@Nullable Integer limit) {
        return (limit == null) ? DEFAULT_LIMIT : Math.max(1, Math.min(MAX_LIMIT, limit));
    }

    private MapSqlParameterSource run(UUID runId) {
        return new MapSqlParameterSource()
                .addValue("runId", runId, Types.OTHER)
                .addValue("environment", environment, Types.VARCHAR);
    }

    private static Claim claim(ResultSet rs, int rowNum) throws SQLException {
        String endedBy = rs.getString("ended_by");
        String outcome = rs.getString("outcome");
        OffsetDateTime endedAt = rs.getObject("ended_at", OffsetDateTime.class);
        return new Claim(
                rs.getInt("run_attempts"),
                rs.getInt("seq"),
                rs.getString("actor"),
                instant(rs, "created_at"),
                (endedAt == null) ? null : endedAt.toInstant(),
                (outcome == null) ? null : RunStatus.valueOf(outcome),
                (endedBy == null) ? null : RunEventType.valueOf(endedBy),
                rs.getString("detail"),
                rs.getBoolean("resumption"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    /** PostgreSQL keeps microseconds, so a key in microseconds finds its row again exactly. */
    private static long micros(Instant instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }

    /**
     * How long each list is.
     *
     * @param steps the number of steps, at most {@link #COUNT_CAP} + 1
     * @param signals the number of signals, at most {@link #COUNT_CAP} + 1
     * @param debounceFolds how many triggers folded into the run while it is a pending debounced run (S-DB-1),
     *     else {@code null}
     */
    record Totals(
            long events,
            long attempts,
            long steps,
            long signals,
            @Nullable Integer debounceFolds) {}

    /** A claim with the event that followed it among the attempt events, if any, and whether it resumed the run. */
    private record Claim(
            int runAttempts,
            int seq,
            String worker,
            Instant startedAt,
            @Nullable Instant endedAt,
            @Nullable RunStatus outcome,
            @Nullable RunEventType endedBy,
            @Nullable String detail,
            boolean resumption) {

        RunAttempt attempt(UUID runId, int number) {
            return new RunAttempt(runId, number, worker, startedAt, endedAt, outcome, endedBy, detail, resumption);
        }
    }
}

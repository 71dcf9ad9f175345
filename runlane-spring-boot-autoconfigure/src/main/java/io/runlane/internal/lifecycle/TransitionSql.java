package io.runlane.internal.lifecycle;

/**
 * The shared tail of every run transition statement. A transition is written as a CTE named {@code changed} that
 * updates runs and returns them ({@code RETURNING *}); this tail then, in the same statement (S-RL-2, S-SK-1):
 *
 * <ol>
 *   <li>gives a singleton key back to the run that {@code SUPERSEDE} released from it, if that run is still
 *       stopping when the key's holder (its waiting successor) ends first: the key never goes free while a run of
 *       it still executes (S-CP-3, S-SK-4);
 *   <li>appends each run's event with the sequence number the update assigned;
 *   <li>wakes the {@code WAITING} runs that await a run that became terminal ({@link #WAKE}, S-RS-4): workers claim
 *       them when their new {@code run_at} comes, and, only when it woke any, are notified on {@code
 *       runlane_<schema>} when the transaction commits. A successor that waits for a superseded predecessor is
 *       woken only once no attempt of that predecessor may still execute ({@link #attemptGone}, S-CP-3). A run
 *       that parks concurrently, which this statement's snapshot cannot show, is woken by its own parking
 *       statement or right after this one commits ({@code RunEndings}, {@code MissedWakeUps}).
 * </ol>
 *
 * Key ownership needs no statement: a run leaves the singleton holders' index when {@code finished_at} is set, and
 * the idempotency key owners' index when it becomes {@code FAILED} or terminal with TTL {@code active} (S-IK-4,
 * S-IK-5); a {@code SUCCEEDED} or {@code CANCELLED} owner stays in it, retained until finish time + the TTL captured
 * at creation (S-IK-3, S-IK-6, {@link KeyOwnership}).
 */
public final class TransitionSql {

    /** The event type follows the status the run moved to. */
    public static final String EVENT_BY_STATUS = """
            CASE status WHEN 'RUNNING' THEN 'CLAIMED' WHEN 'RETRYING' THEN 'RETRY_SCHEDULED'
                        ELSE status END""";

    /**
     * S-CP-3: how far a successor that waits for its predecessor ({@code RunTransitions#awaitPredecessor}) moves its
     * own due time ahead, so that no claim takes it; its wake-up moves it back.
     */
    public static final String PREDECESSOR_WAIT = "interval '100 years'";

    /**
     * The assignments that wake a {@code WAITING} run {@code w} whose awaited run ended (S-RS-4). A run a handler
     * parked (it has started, {@code attempts > 0}) is due now. A successor that waited for its predecessor never
     * started: it becomes due at the later of its own due time and now (S-CP-3, S-TR-4), still {@code WAITING}
     * until then, and no longer awaits the predecessor, so no later wake-up moves it again.
     */
    public static final String WAKE = """
            run_at = CASE WHEN w.attempts = 0 THEN greatest(w.run_at - %1$s, statement_timestamp())
                          ELSE statement_timestamp() END,
                awaiting_run_id = CASE WHEN w.attempts = 0 THEN NULL ELSE w.awaiting_run_id END
            """.formatted(PREDECESSOR_WAIT);

    /**
     * Whether the ended run {@code awaited} lets the {@code WAITING} run {@code w} go: always for a run a handler
     * parked; for a successor that waits for its predecessor only once no attempt of the predecessor may still
     * execute (S-CP-3). The cancellation grace ends a run whose handler ignores it but leaves that attempt's lease
     * in place, extended by its worker's heartbeats until the handler returns (S-CA-5): while it has not expired,
     * the handler may still run on a live instance.
     *
     * @param awaited the alias of the ended run's row
     */
    public static String attemptGone(String awaited) {
        return """
                (w.attempts > 0 OR %1$s.lease_expires_at IS NULL OR %1$s.lease_expires_at <= statement_timestamp())
                """.formatted(awaited);
    }

    private static final String TAIL = """
            , reclaimed_key AS (
                UPDATE {schema}.runs p SET singleton_released = false
                FROM changed f
                WHERE f.finished_at IS NOT NULL AND f.singleton_key IS NOT NULL AND NOT f.singleton_released
                  AND p.environment = f.environment AND p.task_id = f.task_id AND p.singleton_key = f.singleton_key
                  AND p.singleton_released AND p.finished_at IS NULL
            ), changed_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, %s, status, updated_at, :actor, %s FROM changed
            ), woken AS (
                UPDATE {schema}.runs w SET %s
                FROM changed f
                WHERE f.finished_at IS NOT NULL AND w.awaiting_run_id = f.id AND w.status = 'WAITING'
                  AND w.run_at > statement_timestamp() AND %s
                RETURNING w.id
            ), woken_notice AS (
                SELECT pg_notify('runlane_{schema}', '') FROM (SELECT FROM woken LIMIT 1) AS any_woken
            )
            """;

    /**
     * The rows of {@code changed}, also evaluating {@code woken_notice}: PostgreSQL skips a plain CTE that the query
     * does not read, so every statement built here must select its answer {@code FROM} this.
     */
    public static final String CHANGED_ROWS =
            "changed CROSS JOIN (SELECT count(*) AS woken FROM woken_notice) AS notice";

    private TransitionSql() {}

    /**
     * A complete transition statement.
     *
     * @param changedCte the body of the {@code changed} CTE: an {@code UPDATE ... RETURNING *} that also bumps
     *     {@code last_event_seq}
     * @param eventType the SQL expression of the event type, evaluated per changed row
     * @param detail the SQL expression of the event detail
     */
    public static String transition(String changedCte, String eventType, String detail) {
        return withClause(changedCte, eventType, detail) + "SELECT changed.* FROM " + CHANGED_ROWS + "\n";
    }

    /**
     * The {@code WITH} clause of a transition statement without its final {@code SELECT}, for statements that add
     * further CTEs (a batch completion that also claims) after it. Its rows are in the CTE {@code changed}; select
     * them from {@link #CHANGED_ROWS}.
     */
    public static String withClause(String changedCte, String eventType, String detail) {
        return "WITH changed AS (\n" + changedCte + "\n)" + TAIL.formatted(eventType, detail, WAKE, attemptGone("f"));
    }

    /** The condition of every statement that ends an attempt: the run is running and its claim is the attempt's (S-EX-3). */
    public static final String HELD = """
            WHERE id = :id AND fencing_token = :token AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')""";

    /**
     * A statement that ends the held attempt without spending retry budget (S-EX-6, S-ST-7): the run moves to {@code
     * parkedStatus} with a new {@code run_at}, and its release count grows so that {@code ClaimedRun.spentAttempts()}
     * does not count the attempt. A run whose cancellation was requested ends {@code CANCELLED} instead (S-CA-2).
     * Releases and durable waits share it.
     *
     * @param parkedStatus the SQL literal of the status the run moves to
     * @param runAt the SQL expression of its new {@code run_at}
     * @param assignments further {@code column = value,} assignments (each followed by a comma), or empty
     * @param detail the SQL expression of the event detail
     */
    public static String parking(String parkedStatus, String runAt, String assignments, String detail) {
        return transition(
                """
                UPDATE {schema}.runs
                SET status = CASE WHEN status = 'CANCELLATION_REQUESTED' THEN 'CANCELLED' ELSE %s END,
                    finished_at = CASE WHEN status = 'CANCELLATION_REQUESTED' THEN statement_timestamp() END,
                    run_at = CASE WHEN status = 'RUNNING' THEN %s ELSE run_at END,
                    releases = CASE WHEN status = 'RUNNING' THEN releases + 1 ELSE releases END, %s
                    updated_at = statement_timestamp(), lease_owner = NULL, lease_expires_at = NULL,
                    last_event_seq = last_event_seq + 1
                """.formatted(parkedStatus, runAt, assignments) + HELD + "\nRETURNING *", EVENT_BY_STATUS, detail);
    }
}

package io.runlane.internal.step;

import io.runlane.RunStep;
import io.runlane.internal.kernel.SqlTemplate;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads and records completed steps ({@code run_steps}, S-ST-1..6).
 *
 * <p>Recording is one statement, its own short transaction, fenced by the attempt's claim (S-ST-3):
 *
 * <ol>
 *   <li>lock the run's row ({@code FOR NO KEY UPDATE}, the lock the statement's own update takes), only while it is
 *       running under the attempt's fencing token: a lease takeover, a cancellation or another recording of the run
 *       waits for it or is waited for, and the token is checked on the newest row version. A transactional step's
 *       key-share lock ({@link #lockIfHeld}) does not conflict with it, so two attempts' steps never deadlock;
 *   <li>insert the step, {@code ON CONFLICT DO NOTHING}: the primary key (run, name, occurrence) lets one
 *       recording win whatever happens concurrently, and a recording that waited for the lock sees the winner's
 *       committed row;
 *   <li>only if the step was inserted, bump the run's event sequence and append the {@code STEP_COMPLETED} event
 *       with it (S-ST-6, S-RL-2), so that a losing recording leaves no gap in the sequence.
 * </ol>
 *
 * A recording that wrote nothing was either fenced out, or found the step already recorded; the caller tells them
 * apart by reading the step. Steps that attempts record at the same moment may be recorded by one statement that does
 * the same for each of them ({@link #recordAllIfHeld}, S-ST-16).
 */
public final class StepStore {

    /**
     * The source type of a fork (S-RV-3): a run that starts with steps copied from its source, so that even its first
     * attempt reads recorded results.
     */
    public static final String FORK = "FORK";

    private static final String FIND = """
            SELECT result::text AS result FROM {schema}.run_steps
            WHERE run_id = :runId AND name = :name AND occurrence = :occurrence
            """;

    private static final String RECORD = """
            WITH held AS (
                SELECT id FROM {schema}.runs
                WHERE id = :runId AND fencing_token = :token AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
                FOR NO KEY UPDATE%s
            ), recorded AS (
                INSERT INTO {schema}.run_steps (run_id, name, occurrence, step_id, result, completed_at)
                SELECT id, :name, :occurrence, :stepId, cast(:result AS jsonb), statement_timestamp() FROM held
                ON CONFLICT DO NOTHING
                RETURNING run_id
            ), bumped AS (
                UPDATE {schema}.runs r SET last_event_seq = r.last_event_seq + 1
                FROM recorded WHERE r.id = recorded.run_id
                RETURNING r.id, r.last_event_seq, r.status
            ), recorded_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT id, last_event_seq, 'STEP_COMPLETED', status, statement_timestamp(), :actor, :detail FROM bumped
            )
            SELECT count(*) FROM recorded
            """;

    /**
     * S-ST-16: records a group of steps of concurrent attempts in one statement, alone in auto-commit, each step
     * exactly as {@link #RECORD} records one. A run whose row another transaction has locked is skipped rather than
     * waited for ({@code SKIP LOCKED}), so one attempt's lock never holds up the others' steps; its step, like one
     * fenced out or recorded before, is not among the returned positions, and its caller records it alone. Steps of one
     * attempt are recorded one at a time (S-ST-5), so each recorded row is one caller's; should a group hold several
     * steps of one run, their events are numbered in the group's order, and the run's sequence stays gap-free either
     * way (S-RL-2).
     */
    private static final String RECORD_GROUP = """
            WITH input AS (
                SELECT * FROM unnest(cast(:runIds AS uuid[]), cast(:tokens AS bigint[]), cast(:actors AS text[]),
                                     cast(:names AS text[]), cast(:occurrences AS integer[]), cast(:stepIds AS text[]),
                                     cast(:results AS text[]))
                    WITH ORDINALITY AS i(run_id, token, actor, name, occurrence, step_id, result, ord)
                LIMIT %d
            ), held AS (
                SELECT i.* FROM input i
                JOIN {schema}.runs r ON r.id = i.run_id AND r.fencing_token = i.token
                WHERE r.status IN ('RUNNING', 'CANCELLATION_REQUESTED')
                FOR NO KEY UPDATE OF r SKIP LOCKED
            ), recorded AS (
                INSERT INTO {schema}.run_steps (run_id, name, occurrence, step_id, result, completed_at)
                SELECT run_id, name, occurrence, step_id, cast(result AS jsonb), statement_timestamp() FROM held
                ON CONFLICT DO NOTHING
                RETURNING run_id, name, occurrence
            ), numbered AS (
                SELECT held.*, row_number() OVER (PARTITION BY held.run_id ORDER BY held.ord) AS nth,
                       count(*) OVER (PARTITION BY held.run_id) AS steps
                FROM recorded JOIN held USING (run_id, name, occurrence)
            ), bumped AS (
                UPDATE {schema}.runs r SET last_event_seq = r.last_event_seq + n.steps
                FROM (SELECT DISTINCT run_id, steps FROM numbered) n WHERE r.id = n.run_id
                RETURNING r.id, r.last_event_seq - n.steps AS seq_before, r.status
            ), recorded_event AS (
                INSERT INTO {schema}.run_events (run_id, seq, type, status, created_at, actor, detail)
                SELECT b.id, b.seq_before + n.nth, 'STEP_COMPLETED', b.status, statement_timestamp(), n.actor,
                       n.name || ' #' || n.occurrence
                FROM bumped b JOIN numbered n ON n.run_id = b.id
            )
            SELECT ord FROM numbered
            """;

    /**
     * Checks, inside a transactional step's transaction (S-ST-8, S-ST-15), that the attempt holding {@code token}
     * still runs the run, and keeps the row from being deleted until the transaction ends. {@code FOR KEY SHARE}
     * conflicts with no update of a run (none changes its key), so the worker's heartbeat keeps renewing the lease
     * while the step runs (S-EX-16), and neither a takeover nor a cancellation waits for the step: the step's
     * record statement checks the token again and fences a step whose attempt lost the run.
     */
    private static final String LOCK = """
            SELECT id FROM {schema}.runs
            WHERE id = :runId AND fencing_token = :token AND status IN ('RUNNING', 'CANCELLATION_REQUESTED')
            FOR KEY SHARE
            """;

    private static final String LIST = """
            SELECT name, occurrence, step_id, completed_at, result::text AS result FROM {schema}.run_steps
            WHERE run_id = :runId
            ORDER BY completed_at, name, occurrence
            """;

    private static final String RESULTS = """
            SELECT name, occurrence, result::text AS result FROM {schema}.run_steps WHERE run_id = :runId
            """;

    /**
     * S-RV-3: copies the listed steps of a finished run to a fork of it, under the fork's step ids, with their results
     * and completion times (which keep the recording order). The source's row is share-locked while it is terminal,
     * so a resume waits for the fork's transaction and the pruner skips the source until it ends, and a source that
     * was resumed or pruned since it was read copies nothing ({@code held} is 0): the caller rolls the fork back.
     */
    private static final String COPY = """
            WITH source AS (
                SELECT id FROM {schema}.runs
                WHERE id = :sourceRunId AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
                FOR SHARE
            ), copied AS (
                INSERT INTO {schema}.run_steps (run_id, name, occurrence, step_id, result, completed_at)
                SELECT :runId, s.name, s.occurrence, c.step_id, s.result, s.completed_at
                FROM source
                JOIN {schema}.run_steps s ON s.run_id = source.id
                JOIN unnest(cast(:names AS text[]), cast(:occurrences AS integer[]), cast(:stepIds AS text[]))
                     AS c(name, occurrence, step_id) ON s.name = c.name AND s.occurrence = c.occurrence
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM source) AS held, (SELECT count(*) FROM copied) AS copied
            """;

    private static final String NOW = "SELECT statement_timestamp()";

    /** The most steps {@link #recordAllIfHeld} records in one statement. */
    static final int MAX_GROUP = 64;

    /** A recorded step's result as JSON text; {@code null} for a step without a result. */
    public record StoredResult(@Nullable String json) {}

    private final JdbcClient jdbc;

    private final String find;

    private final String record;

    private final String recordUnlocked;

    /** {@link #RECORD_GROUP} by group size: the size written into its text, so that it keeps a generic plan. */
    private final String[] recordGroup;

    private final String list;

    private final String lock;

    private final String results;

    private final String copy;

    public StepStore(JdbcClient jdbc, SqlTemplate sql) {
        this.jdbc = jdbc;
        this.find = sql.format(FIND);
        this.record = sql.format(RECORD.formatted(""));
        this.recordUnlocked = sql.format(RECORD.formatted(" SKIP LOCKED"));
        this.recordGroup = new String[MAX_GROUP + 1];
        for (int size = 1; size <= MAX_GROUP; size++) {
            this.recordGroup[size] = sql.format(RECORD_GROUP.formatted(size));
        }
        this.list = sql.format(LIST);
        this.lock = sql.format(LOCK);
        this.results = sql.format(RESULTS);
        this.copy = sql.format(COPY);
    }

    /** The recorded result of a step, if it completed. */
    public Optional<StoredResult> find(UUID runId, String name, int occurrence) {
        return jdbc.sql(find)
                .paramSource(step(runId, name, occurrence))
                .query((rs, rowNum) -> new StoredResult(rs.getString("result")))
                .optional();
    }

    /** Every recorded result of a run, by {@link #key(String, int)}: one query instead of one per step. */
    public Map<String, StoredResult> results(UUID runId) {
        Map<String, StoredResult> recorded = new HashMap<>();
        jdbc.sql(results)
                .paramSource(new MapSqlParameterSource().addValue("runId", runId, Types.OTHER))
                .query(rs -> {
                    recorded.put(
                            key(rs.getString("name"), rs.getInt("occurrence")),
                            new StoredResult(rs.getString("result")));
                });
        return recorded;
    }

    /** The key of a step in {@link #results}. */
    public static String key(String name, int occurrence) {
        return occurrence + "#" + name;
    }

    /**
     * Records a completed step for the attempt holding {@code token}. Returns whether this call recorded it; {@code
     * false} when the attempt no longer holds the run or the step was already recorded.
     */
    public boolean recordIfHeld(
            UUID runId, long token, String actor, String name, int occurrence, String stepId, @Nullable String json) {
        return recordIfHeld(new StepRecord(runId, token, actor, name, occurrence, stepId, json));
    }

    /** {@link #recordIfHeld(UUID, long, String, String, int, String, String)} for {@code step}. */
    boolean recordIfHeld(StepRecord step) {
        return record(record, step);
    }

    /**
     * Records {@code step} as {@link #recordIfHeld(StepRecord)} does, unless another transaction has locked its run's
     * row: then it records nothing rather than wait (S-ST-16), as when the step was fenced out or recorded before.
     */
    boolean recordIfHeldAndUnlocked(StepRecord step) {
        return record(recordUnlocked, step);
    }

    private boolean record(String statement, StepRecord step) {
        MapSqlParameterSource params = step(step.runId(), step.name(), step.occurrence())
                .addValue("token", step.token(), Types.BIGINT)
                .addValue("actor", step.actor(), Types.VARCHAR)
                .addValue("stepId", step.stepId(), Types.VARCHAR)
                .addValue("result", step.json(), Types.VARCHAR)
                .addValue("detail", step.name() + " #" + step.occurrence(), Types.VARCHAR);
        return jdbc.sql(statement).paramSource(params).query(Long.class).single() == 1;
    }

    /**
     * Records a group of at most {@link #MAX_GROUP} steps in one statement and one commit, alone in auto-commit
     * (S-ST-16). Returns the positions in {@code steps} of those this call recorded; any other was fenced out,
     * recorded before, or its run's row was locked by another transaction, and its caller records it alone to tell.
     */
    Set<Integer> recordAllIfHeld(List<StepRecord> steps) {
        int size = steps.size();
        String[] runIds = new String[size];
        Long[] tokens = new Long[size];
        String[] actors = new String[size];
        String[] names = new String[size];
        Integer[] occurrences = new Integer[size];
        String[] stepIds = new String[size];
        String[] results = new String[size];
        for (int i = 0; i < size; i++) {
            StepRecord step = steps.get(i);
            runIds[i] = step.runId().toString();
            tokens[i] = step.token();
            actors[i] = step.actor();
            names[i] = step.name();
            occurrences[i] = step.occurrence();
            stepIds[i] = step.stepId();
            results[i] = step.json();
        }
        Set<Integer> recorded = new HashSet<>();
        jdbc.sql(recordGroup[size])
                .paramSource(new MapSqlParameterSource()
                        .addValue("runIds", runIds)
                        .addValue("tokens", tokens)
                        .addValue("actors", actors)
                        .addValue("names", names)
                        .addValue("occurrences", occurrences)
                        .addValue("stepIds", stepIds)
                        .addValue("results", results))
                .query(rs -> {
                    recorded.add(rs.getInt("ord") - 1);
                });
        return recorded;
    }

    /**
     * Key-share locks the run's row for the current transaction if the attempt holding {@code token} still runs it
     * (S-ST-8). Returns whether it does; the token may still change before the transaction ends ({@link
     * #recordIfHeld} checks it again).
     */
    public boolean lockIfHeld(UUID runId, long token) {
        return jdbc.sql(lock)
                .paramSource(new MapSqlParameterSource()
                        .addValue("runId", runId, Types.OTHER)
                        .addValue("token", token, Types.BIGINT))
                .query((rs, rowNum) -> rs.getObject(1))
                .optional()
                .isPresent();
    }

    /** A run's completed steps in completion order (S-ST-6). */
    public List<RunStep> list(UUID runId) {
        return jdbc.sql(list)
                .paramSource(new MapSqlParameterSource().addValue("runId", runId, Types.OTHER))
                .query((rs, rowNum) -> new RunStep(
                        rs.getString("name"),
                        rs.getInt("occurrence"),
                        rs.getString("step_id"),
                        rs.getObject("completed_at", OffsetDateTime.class).toInstant(),
                        rs.getString("result")))
                .list();
    }

    /**
     * Copies {@code steps} of the finished run {@code sourceRunId} to its fork {@code runId}, each under the fork's
     * step id for its name and occurrence (S-RV-3, S-ST-2), in the current transaction. Returns how many were copied,
     * or empty when the source is no longer terminal (it was resumed or pruned meanwhile) and nothing was copied.
     */
    public OptionalInt copyFinished(UUID sourceRunId, UUID runId, List<RunStep> steps) {
        String[] names = new String[steps.size()];
        Integer[] occurrences = new Integer[steps.size()];
        String[] stepIds = new String[steps.size()];
        for (int i = 0; i < steps.size(); i++) {
            RunStep step = steps.get(i);
            names[i] = step.name();
            occurrences[i] = step.occurrence();
            stepIds[i] = StepIds.stepId(runId, step.name(), step.occurrence());
        }
        return jdbc.sql(copy)
                .paramSource(new MapSqlParameterSource()
                        .addValue("sourceRunId", sourceRunId, Types.OTHER)
                        .addValue("runId", runId, Types.OTHER)
                        .addValue("names", names)
                        .addValue("occurrences", occurrences)
                        .addValue("stepIds", stepIds))
                .query((rs, rowNum) ->
                        rs.getLong("held") > 0 ? OptionalInt.of(rs.getInt("copied")) : OptionalInt.empty())
                .single();
    }

    /** The database clock (S-RL-3). */
    public Instant now() {
        return jdbc.sql(NOW).query(OffsetDateTime.class).single().toInstant();
    }

    private static MapSqlParameterSource step(UUID runId, String name, int occurrence) {
        return new MapSqlParameterSource()
                .addValue("runId", runId, Types.OTHER)
                .addValue("name", name, Types.VARCHAR)
                .addValue("occurrence", occurrence, Types.INTEGER);
    }
}

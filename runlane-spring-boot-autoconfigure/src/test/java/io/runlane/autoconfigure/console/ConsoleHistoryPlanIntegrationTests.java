package io.runlane.autoconfigure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.sql.Types;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The console's history statements read a page from an index, not every row of the run (S-CO-10, issue 25 item 12).
 * Among 20,000 runs, one has 20,000 steps, 20,000 signals and 20,004 events in 501 attempts: {@code EXPLAIN ANALYZE}
 * of each page, first and from the middle, shows index scans that touch about a page of rows; the generic plan,
 * which PostgreSQL may switch to for a statement prepared on a pooled connection, reads the same index in order. The
 * plans are printed for the record.
 */
@RunlaneDatabaseTest
class ConsoleHistoryPlanIntegrationTests {

    private static final int ROWS = 20_000;

    private static final int LIMIT = ConsoleHistory.DEFAULT_LIMIT + 1;

    private static final UUID RUN = UUID.randomUUID();

    private static final List<String> HISTORY_TABLES = List.of("run_events", "run_steps", "run_signals");

    /** 20,000 runs, of which 2,000 have a short history (3 steps and 3 signals) and the first a long one. */
    private static final String RUNS = """
            INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at, created_at,
                                 updated_at, finished_at, last_event_seq)
            SELECT CASE WHEN g = 0 THEN cast(? AS uuid) ELSE gen_random_uuid() END, 'default', 'ledger.replay',
                   'default', 'SUCCEEDED', '{}', 3, now(), now(), now(), now(),
                   CASE WHEN g = 0 THEN %d WHEN g <= 2000 THEN 7 ELSE 1 END
            FROM generate_series(0, 19999) g
            """;

    /** Each attempt is a claim, 38 steps and a retry; the last event succeeds. */
    private static final String EVENTS = """
            INSERT INTO %1$s.run_events (run_id, seq, type, status, created_at, actor, detail)
            SELECT r.id, g,
                   CASE WHEN (g - 2) %% 40 = 0 THEN 'CLAIMED' WHEN g = r.last_event_seq THEN 'SUCCEEDED'
                        WHEN (g - 2) %% 40 = 39 THEN 'RETRY_SCHEDULED' ELSE 'STEP_COMPLETED' END,
                   'RUNNING', now() + g * interval '1 ms', 'worker', NULL
            FROM %1$s.runs r, generate_series(2, r.last_event_seq) g;
            UPDATE %1$s.runs r SET attempts = (SELECT count(*) FROM %1$s.run_events e
                                               WHERE e.run_id = r.id AND e.type = 'CLAIMED')
            WHERE r.last_event_seq > 1
            """;

    private static final String STEPS_AND_SIGNALS = """
            INSERT INTO %1$s.run_steps (run_id, name, occurrence, step_id, result, completed_at)
            SELECT r.id, 'step ' || (g %% 7), g / 7 + 1, 'id', to_jsonb(g), now() + g * interval '1 ms'
            FROM %1$s.runs r, generate_series(1, r.last_event_seq - 4) g;
            INSERT INTO %1$s.run_signals (id, run_id, name, payload, sent_at)
            SELECT gen_random_uuid(), r.id, 'tick', jsonb_build_object('n', g), now() + g * interval '1 ms'
            FROM %1$s.runs r, generate_series(1, r.last_event_seq - 4) g
            """;

    @Pool(size = 2)
    private static HikariDataSource dataSource;

    private static JdbcTemplate jdbc;

    /** PostgreSQL explains a statement with {@code $n} placeholders only in the simple query protocol. */
    private static JdbcTemplate simple;

    private static NamedParameterJdbcTemplate named;

    private static SqlTemplate sql;

    @FreshSchema("console_plans")
    private static String schema;

    @BeforeAll
    static void aLongRunAmongManyShortOnes() {
        new RunlaneSchemaInitializer(dataSource, schema).initialize();
        jdbc = new JdbcTemplate(dataSource);
        String url = TestDatabase.jdbcUrl();
        simple = new JdbcTemplate(
                new SingleConnectionDataSource(url + (url.contains("?") ? "&" : "?") + "preferQueryMode=simple", true));
        named = new NamedParameterJdbcTemplate(dataSource);
        sql = new SqlTemplate(schema);
        jdbc.update(RUNS.formatted(schema, ROWS + 4), RUN.toString());
        jdbc.execute(EVENTS.formatted(schema));
        jdbc.execute(STEPS_AND_SIGNALS.formatted(schema));
        for (String table : List.of("runs", "run_events", "run_steps", "run_signals")) {
            jdbc.execute("VACUUM ANALYZE " + schema + "." + table);
        }
    }

    @Test
    @DisplayName("S-CO-10, S-RL-2: a page of events reads its rows backwards along the events' primary key")
    void aPageOfEventsReadsThePrimaryKeyBackwards() {
        for (int before : new int[] {Integer.MAX_VALUE, ROWS / 2, 30}) {
            assertBounded(
                    "events before " + before,
                    ConsoleHistory.EVENTS,
                    run().addValue("before", before, Types.INTEGER).addValue("limit", LIMIT, Types.INTEGER),
                    "run_events_pkey",
                    3 * LIMIT);
        }
    }

    @Test
    @DisplayName("S-CO-10, S-EX-17, S-EX-34: a page of attempts reads claims, their ends and the ends before them"
            + " from the attempts index, skipping the steps in between")
    void aPageOfAttemptsReadsTheAttemptsIndex() {
        for (int before : new int[] {Integer.MAX_VALUE, ROWS / 2}) {
            assertBounded(
                    "attempts before " + before,
                    ConsoleHistory.ATTEMPTS,
                    run().addValue("before", before, Types.INTEGER).addValue("limit", LIMIT, Types.INTEGER),
                    "run_events_attempts_idx",
                    5 * LIMIT);
        }
    }

    @Test
    @DisplayName("S-CO-10, S-ST-6: a page of steps continues along run_steps_completed_idx")
    void aPageOfStepsReadsTheCompletionIndex() {
        Map<String, Object> middle = jdbc.queryForMap("""
                SELECT completed_at::text AS at, name, occurrence FROM %s.run_steps WHERE run_id = ?
                ORDER BY completed_at DESC, name DESC, occurrence DESC OFFSET %d LIMIT 1
                """.formatted(schema, ROWS / 2), RUN);
        assertBounded("first steps", ConsoleHistory.STEPS, steps("infinity", "", 0), "run_steps_completed_idx", LIMIT);
        assertBounded(
                "steps from the middle",
                ConsoleHistory.STEPS,
                steps((String) middle.get("at"), (String) middle.get("name"), (Integer) middle.get("occurrence")),
                "run_steps_completed_idx",
                LIMIT);
    }

    @Test
    @DisplayName("S-CO-10, S-SG-5: a page of signals continues along run_signals_run_idx")
    void aPageOfSignalsReadsTheRunIndex() {
        Map<String, Object> middle = jdbc.queryForMap("""
                SELECT sent_at::text AS at, id FROM %s.run_signals WHERE run_id = ?
                ORDER BY sent_at DESC, id DESC OFFSET %d LIMIT 1
                """.formatted(schema, ROWS / 2), RUN);
        assertBounded(
                "first signals",
                ConsoleHistory.SIGNALS,
                signals("infinity", new UUID(-1L, -1L)),
                "run_signals_run_idx",
                2 * LIMIT);
        assertBounded(
                "signals from the middle",
                ConsoleHistory.SIGNALS,
                signals((String) middle.get("at"), (UUID) middle.get("id")),
                "run_signals_run_idx",
                2 * LIMIT);
    }

    @Test
    @DisplayName("S-CO-10: the totals count steps and signals along their indexes up to the cap only")
    void theTotalsCountUpToTheCap() {
        assertBounded(
                "totals",
                ConsoleHistory.TOTALS,
                run().addValue("cap", ConsoleHistory.COUNT_CAP + 1, Types.INTEGER),
                "run_steps_completed_idx",
                2 * (ConsoleHistory.COUNT_CAP + 1) + 1);
    }

    private static MapSqlParameterSource steps(String completedAt, String name, int occurrence) {
        return run().addValue("completedAt", completedAt, Types.VARCHAR)
                .addValue("name", name, Types.VARCHAR)
                .addValue("occurrence", occurrence, Types.INTEGER)
                .addValue("limit", LIMIT, Types.INTEGER);
    }

    private static MapSqlParameterSource signals(String sentAt, UUID id) {
        return run().addValue("sentAt", sentAt, Types.VARCHAR)
                .addValue("id", id, Types.OTHER)
                .addValue("limit", LIMIT, Types.INTEGER);
    }

    private static MapSqlParameterSource run() {
        return new MapSqlParameterSource()
                .addValue("runId", RUN, Types.OTHER)
                .addValue("environment", "default", Types.VARCHAR);
    }

    /**
     * Explains the statement as it runs with these parameters, and as the generic plan of its prepared form. Both
     * must read the index, and none of the history tables by a sequential or bitmap scan (which collects every entry
     * of the run before a limit applies); the scans of the run must touch at most {@code maxRows} rows in all.
     */
    private static void assertBounded(
            String what, String statement, MapSqlParameterSource params, String index, int maxRows) {
        String query = sql.format(statement);
        List<String> text = named.queryForList("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + query, params, String.class);
        System.out.println("Plan of " + what + ":\n" + String.join("\n", text));
        String json = named.queryForObject("EXPLAIN (ANALYZE, FORMAT JSON) " + query, params, String.class);
        List<Map<String, Object>> nodes = JsonPath.read(json, "$..[?(@['Node Type'])]");
        assertUsesIndexInOrder(what, nodes, index);
        long touched = nodes.stream()
                .filter(node -> ((String) node.get("Node Type")).contains("Scan"))
                .filter(node -> HISTORY_TABLES.contains(String.valueOf(node.get("Relation Name"))))
                .filter(node ->
                        !(index.equals("run_steps_completed_idx") && "run_events".equals(node.get("Relation Name"))))
                .mapToLong(node -> (number(node, "Actual Rows") + number(node, "Rows Removed by Filter"))
                        * Math.max(1, number(node, "Actual Loops")))
                .sum();
        assertThat(touched)
                .as(what + ": rows its scans of the run's history touched")
                .isLessThanOrEqualTo(maxRows);

        Integer version = simple.queryForObject("SELECT current_setting('server_version_num')::int", Integer.class);
        if (version == null || version < 160000) {
            // EXPLAIN (GENERIC_PLAN) exists from PostgreSQL 16 on; older servers show the custom plan only
            return;
        }
        String generic =
                simple.queryForObject("EXPLAIN (GENERIC_PLAN, FORMAT JSON) " + positional(statement), String.class);
        System.out.println("Generic plan of " + what + ":\n"
                + String.join(
                        "\n",
                        simple.queryForList(
                                "EXPLAIN (GENERIC_PLAN, COSTS OFF) " + positional(statement), String.class)));
        assertUsesIndexInOrder(what + " (generic plan)", JsonPath.read(generic, "$..[?(@['Node Type'])]"), index);
    }

    private static void assertUsesIndexInOrder(String what, List<Map<String, Object>> nodes, String index) {
        assertThat(nodes).extracting(node -> node.get("Index Name")).as(what).contains(index);
        // A page of steps looks up, per step, whether a WAITING event parked the run in a sleep of that name
        // (S-CO-11): a probe of the run's wait and attempt events (run_events_attempts_idx), not of its history.
        assertThat(nodes)
                .filteredOn(node -> HISTORY_TABLES.contains(String.valueOf(node.get("Relation Name"))))
                .filteredOn(node -> !(node.get("Node Type").equals("Bitmap Heap Scan")
                        && "run_events".equals(node.get("Relation Name"))
                        && index.equals("run_steps_completed_idx")))
                .extracting(node -> (String) node.get("Node Type"))
                .as(what + ": scans of the history tables")
                .allMatch(type -> type.equals("Index Scan") || type.equals("Index Only Scan"));
    }

    /** The statement with {@code $1, $2, …} for its named parameters, as PostgreSQL prepares it. */
    private static String positional(String statement) {
        String marked = NamedParameterUtils.parseSqlStatementIntoString(sql.format(statement));
        AtomicInteger position = new AtomicInteger();
        Matcher marks = Pattern.compile("\\?").matcher(marked);
        return marks.replaceAll(match -> Matcher.quoteReplacement("$" + position.incrementAndGet()));
    }

    private static long number(Map<String, Object> node, String field) {
        Object value = node.get(field);
        return (value == null) ? 0 : ((Number) value).longValue();
    }
}

package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.QueryPlans;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * S-PR-2, S-EX-1 (issue 30): the claim stays bounded by what it claims with 1,000,000 due runs of eleven priorities
 * (-100 to 100 in steps of 20) and a deep backlog of 250,000 runs due later at ten other priorities (-90 to 90), so
 * that the claim visits 21 priority levels and ten of them hold only runs due later. Its plan, {@code EXPLAIN
 * (ANALYZE, BUFFERS, FORMAT JSON)} of the statement {@link RunClaims#claimDue} sends, reads the claim index
 * {@code runs_waiting_due_idx} by ranges (and the primary key for the rows it claims), never scans the table, sorts
 * only what the levels' probes returned (at most a claim's worth per level) and touches a bounded number of pages.
 * The rows are written by one {@code INSERT ... SELECT} per status and analyzed, with time-ordered ids as the engine
 * makes them, so the fill takes seconds. The plans are written to {@code target/claim-plans.txt}.
 */
@RunlaneDatabaseTest
class MixedPriorityClaimPlanIntegrationTests {

    private static final int DUE = 1_000_000;

    private static final int LATER = 250_000;

    private static final int DUE_LEVELS = 11;

    private static final int LATER_LEVELS = 10;

    private static final int LIMIT = 32;

    /** What the claim may read at most from any scan of {@code runs}: a claim's worth per level, and the probes. */
    private static final long ROWS_BOUND = (long) (DUE_LEVELS + LATER_LEVELS) * (LIMIT + 2);

    /**
     * What the limited claim may read at most from any scan of {@code runs}: per level the due runs it ranks (ten times
     * the larger of the claim and the queue's limit, {@link RunClaims#claimWithinLimitStatement}) and the probes.
     */
    private static final long LIMITED_ROWS_BOUND = (long) (DUE_LEVELS + LATER_LEVELS) * (2 * LIMIT * 10 + 2);

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void fill(@FreshSchema("claimplan_mixed") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new ConfirmOrder());
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // time-ordered ids, as the engine makes them (RunIds, UUID version 7): each row goes to the primary key's end
        String insert = "INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,"
                + " created_at, updated_at, attempts, fencing_token, priority)"
                + " SELECT (lpad(to_hex(%d + g), 12, '0') || '70008000' || lpad(to_hex(g), 12, '0'))::uuid,"
                + " 'default', 'orders.confirm', 'default', %s, '{}', 3, %s, now(), now(), 0, 0, %s"
                + " FROM generate_series(1, %d) g";
        long epochMillis = System.currentTimeMillis();
        jdbc.update(insert.formatted(
                schema,
                epochMillis,
                "'QUEUED'",
                "now() - g * interval '1 millisecond'",
                "(g % " + DUE_LEVELS + ") * 20 - 100",
                DUE));
        jdbc.update(insert.formatted(
                schema,
                epochMillis + DUE,
                "'SCHEDULED'",
                "now() + interval '1 hour' + g * interval '1 second'",
                "(g % " + LATER_LEVELS + ") * 20 - 90",
                LATER));
        jdbc.execute("ANALYZE " + schema + ".runs");
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    @Test
    @DisplayName("S-PR-2, S-EX-1: a claim of 32 among 1,000,000 due runs of mixed priorities and 250,000 due later"
            + " reads index ranges of a bounded size and takes the highest priority")
    void claimAmongAMillionDueRunsOfMixedPrioritiesIsBounded() throws IOException {
        assertBounded(explainClaim(LIMIT), ROWS_BOUND);
        assertBounded(
                record(
                        JSON.readTree(QueryPlans.explainGeneric(
                                        dataSource,
                                        RunClaims.claimDueStatement(new SqlTemplate(runlane.schema()), LIMIT),
                                        parameters(),
                                        "ANALYZE, BUFFERS, FORMAT JSON"))
                                .get(0),
                        "generic plan of the claim of " + LIMIT),
                ROWS_BOUND);

        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("w-1", List.of("default"), List.of("orders.confirm"), LIMIT, Duration.ofMinutes(1));
        assertThat(claimed)
                .hasSize(LIMIT)
                .allSatisfy(run -> assertThat(run.run().priority()).isEqualTo(100));
    }

    @Test
    @DisplayName("S-PR-2, S-QC-2, S-EX-1: the claim of a queue with a concurrency limit among the same runs reads index"
            + " ranges of a bounded size and takes the highest priority")
    void limitedClaimAmongAMillionDueRunsOfMixedPrioritiesIsBounded() throws IOException {
        int concurrencyLimit = 2 * LIMIT;
        String statement =
                RunClaims.claimWithinLimitStatement(new SqlTemplate(runlane.schema()), LIMIT, concurrencyLimit);
        MapSqlParameterSource limited = parameters()
                .addValue("queue", "default", Types.VARCHAR)
                .addValue("concurrencyLimit", concurrencyLimit, Types.INTEGER);
        assertBounded(explain(statement, limited, "limited claim of " + LIMIT), LIMITED_ROWS_BOUND, "runs_running_idx");
        assertBounded(
                record(
                        JSON.readTree(QueryPlans.explainGeneric(
                                        dataSource, statement, limited, "ANALYZE, BUFFERS, FORMAT JSON"))
                                .get(0),
                        "generic plan of the limited claim of " + LIMIT),
                LIMITED_ROWS_BOUND,
                "runs_running_idx");

        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDueWithinLimit(
                        "w-2", "default", concurrencyLimit, List.of("orders.confirm"), LIMIT, Duration.ofMinutes(1));
        assertThat(claimed)
                .hasSize(LIMIT)
                .allSatisfy(run -> assertThat(run.run().priority()).isEqualTo(100));
    }

    /** The plan reads index ranges only, each scan and sort a bounded number of rows, and few pages. */
    private static void assertBounded(JsonNode plan, long rowsBound, String... otherIndexes) {
        List<JsonNode> nodes = new ArrayList<>();
        collect(plan.get("Plan"), nodes);

        assertThat(nodes)
                .as("node types")
                .extracting(node -> node.get("Node Type").asString())
                .doesNotContain("Seq Scan", "Bitmap Heap Scan");
        assertThat(nodes)
                .as("indexes read")
                .filteredOn(node -> node.has("Index Name"))
                .extracting(node -> node.get("Index Name").asString())
                .isSubsetOf(Stream.concat(Stream.of("runs_waiting_due_idx", "runs_pkey"), Stream.of(otherIndexes))
                        .toList());
        assertThat(nodes)
                .as("rows each scan of runs returned over all its loops")
                .filteredOn(node -> "runs".equals(text(node, "Relation Name")))
                .allSatisfy(node -> assertThat(rows(node)).isLessThanOrEqualTo(rowsBound));
        assertThat(nodes)
                .as("rows each sort ordered")
                .filteredOn(node -> "Sort".equals(text(node, "Node Type")))
                .allSatisfy(node -> assertThat(rows(node.get("Plans").get(0))).isLessThanOrEqualTo(rowsBound));
        long buffers = plan.get("Plan").get("Shared Hit Blocks").asLong()
                + plan.get("Plan").get("Shared Read Blocks").asLong();
        assertThat(buffers).as("shared buffers the claim touched").isLessThan(3_000);
    }

    /**
     * {@code EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)} of the claim statement with the parameters {@link
     * RunClaims#claimDue} binds, in a transaction rolled back afterwards; the plan's root object.
     */
    private static JsonNode explainClaim(int limit) throws IOException {
        return explain(
                RunClaims.claimDueStatement(new SqlTemplate(runlane.schema()), limit),
                parameters(),
                "claim of " + limit);
    }

    /** The parameters both claim statements bind. */
    private static MapSqlParameterSource parameters() {
        return new MapSqlParameterSource()
                .addValue("worker", "explain", Types.VARCHAR)
                .addValue("environment", "default", Types.VARCHAR)
                .addValue("taskIds", List.of("orders.confirm"))
                .addValue("leaseMs", 60_000L, Types.BIGINT)
                .addValue("queues", new SqlArrayValue("text", "default"));
    }

    private static JsonNode explain(String statement, MapSqlParameterSource params, String label) throws IOException {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        String plan = transaction.execute(status -> {
            status.setRollbackOnly();
            return new NamedParameterJdbcTemplate(dataSource)
                    .queryForObject("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + statement, params, String.class);
        });
        return record(JSON.readTree(plan).get(0), label);
    }

    /** Appends {@code plan} to {@code target/claim-plans.txt} under {@code label}; returns it. */
    private static JsonNode record(JsonNode plan, String label) throws IOException {
        Files.writeString(
                Path.of("target", "claim-plans.txt"),
                "---- " + label + " among " + DUE + " due runs of mixed priorities and " + LATER + " due later\n" + plan
                        + "\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        return plan;
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        into.add(node);
        JsonNode children = node.get("Plans");
        if (children != null) {
            children.forEach(child -> collect(child, into));
        }
    }

    /** The rows a node returned over all its loops. */
    private static long rows(JsonNode node) {
        return node.get("Actual Rows").asLong() * node.get("Actual Loops").asLong();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null ? null : value.asString();
    }
}

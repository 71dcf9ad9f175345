package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-EX-1, S-PR-2: the claim's cost is bounded by what it claims, not by the backlog. Among 300,000 waiting runs
 * (100,000 due in five priorities, 150,000 scheduled for later, 50,000 parked for a century) a claim of 32 reads a
 * few hundred index and heap pages, and with only the later runs left it reads a handful: it never scans the runs due
 * later. The plans are written to {@code target/claim-plans.txt}.
 */
@RunlaneDatabaseTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClaimPlanIntegrationTests {

    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static JdbcTemplate jdbc;

    @BeforeAll
    static void fill(@FreshSchema("claimplan") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new ConfirmOrder());
        jdbc = new JdbcTemplate(dataSource);
        String insert = "INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,"
                + " created_at, updated_at, attempts, fencing_token, priority)"
                + " SELECT gen_random_uuid(), 'default', 'orders.confirm', 'default', %s, '{}', 3, %s, now(), now(),"
                + " 0, 0, %s FROM generate_series(1, %d) g";
        jdbc.update(
                insert.formatted(schema, "'QUEUED'", "now() - g * interval '1 millisecond'", "(g % 5) - 2", 100_000));
        jdbc.update(insert.formatted(
                schema, "'SCHEDULED'", "now() + interval '1 hour' + g * interval '1 second'", "0", 150_000));
        jdbc.update(insert.formatted(schema, "'WAITING'", "now() + interval '100 years'", "0", 50_000));
        jdbc.execute("VACUUM ANALYZE " + schema + ".runs");
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    @Test
    @Order(1)
    @DisplayName("S-PR-2: a claim of 32 among 100,000 due runs of five priorities takes the highest, reading few pages")
    void claimAmongADeepDueBacklogIsBounded() throws IOException {
        String plan = explainClaim(32);

        assertThat(plan).doesNotContain("Seq Scan").contains("runs_waiting_due_idx");
        assertThat(sharedBuffers(plan)).isLessThan(2_000);
        List<ClaimedRun> claimed = runlane.engine()
                .claims()
                .claimDue("w-1", List.of("default"), List.of("orders.confirm"), 32, Duration.ofMinutes(1));
        assertThat(claimed)
                .hasSize(32)
                .allSatisfy(run -> assertThat(run.run().priority()).isEqualTo(2));
    }

    @Test
    @Order(2)
    @DisplayName("S-EX-1, S-PR-2: with only runs due later left, a claim finds none without scanning them")
    void claimWithOnlyLaterRunsReadsAHandfulOfPages() throws IOException {
        jdbc.update("DELETE FROM " + runlane.schema() + ".runs WHERE status = 'QUEUED'");
        jdbc.execute("VACUUM ANALYZE " + runlane.schema() + ".runs");

        String plan = explainClaim(32);

        assertThat(plan).doesNotContain("Seq Scan");
        assertThat(sharedBuffers(plan)).isLessThan(100);
    }

    /** {@code EXPLAIN (ANALYZE, BUFFERS)} of the claim statement, in a transaction rolled back afterwards. */
    private static String explainClaim(int limit) throws IOException {
        String statement = RunClaims.claimDueStatement(new SqlTemplate(runlane.schema()), limit);
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("worker", "explain")
                .addValue("leaseMs", 60_000L)
                .addValue("environment", "default")
                .addValue("taskIds", List.of("orders.confirm"))
                .addValue("queues", new SqlArrayValue("text", "default"));
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        String plan = transaction.execute(status -> {
            status.setRollbackOnly();
            return String.join(
                    "\n",
                    new NamedParameterJdbcTemplate(dataSource)
                            .queryForList("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement, params, String.class));
        });
        Path file = Path.of("target", "claim-plans.txt");
        Files.writeString(
                file,
                "---- claim of " + limit + "\n" + plan + "\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        return plan;
    }

    /** The shared buffers the statement touched: its plan's first {@code Buffers} line, which sums its nodes. */
    private static long sharedBuffers(String plan) {
        Matcher matcher = BUFFERS.matcher(plan);
        assertThat(matcher.find()).as("the plan has a Buffers line:\n%s", plan).isTrue();
        long hit = matcher.group(1) == null ? 0 : Long.parseLong(matcher.group(1));
        long read = matcher.group(2) == null ? 0 : Long.parseLong(matcher.group(2));
        return hit + read;
    }
}

package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.registry.ThrottlePolicy;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.QueryPlans;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * S-TH-2 (issue 30): a throttled task's claim never reads the backlog of a key at its throttle. Key {@code hot} has
 * 200,000 due runs, older than any other, and its 5 starts of the hour; 20 other keys have 5 due runs each. {@code
 * EXPLAIN ANALYZE} of both claim statements ({@link ThrottledClaims#claimStatement}, {@link
 * ThrottledClaims#claimByKeyStatement}) shows every scan of {@code runs} returning a bounded number of rows over all
 * its loops, and no sequential scan, in the plans made for the bound values and in the generic plans the claims run
 * on ({@code plan_cache_mode}); the claims then take the other keys' runs, 5 per key, and none of {@code hot}. The
 * plans are printed for the record.
 */
@RunlaneDatabaseTest
class ThrottledClaimPlanIntegrationTests {

    private static final int HOT_BACKLOG = 200_000;

    /** A window per priority level, the key and level probes, and a claim's worth per key: far below the backlog. */
    private static final long ROWS_BOUND = 2_000;

    private static final Pattern SCAN_OF_RUNS = Pattern.compile("Scan .* on runs .*rows=(\\d+) loops=(\\d+)");

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    @FreshSchema("claimplan_throttled")
    private static String schema;

    private static TestRunlane runlane;

    @BeforeAll
    static void fill() {
        runlane = TestRunlane.start(dataSource, schema, new ConfirmOrder());
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String insert = "INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,"
                + " created_at, updated_at, attempts, fencing_token, priority, throttle_key)"
                + " SELECT gen_random_uuid(), 'default', 'orders.confirm', 'default', 'QUEUED', '{}', 3, %s, now(),"
                + " now(), 0, 0, 0, %s FROM generate_series(1, %d) g";
        jdbc.update(insert.formatted(
                schema, "now() - interval '1 day' + g * interval '1 millisecond'", "'hot'", HOT_BACKLOG));
        jdbc.update(insert.formatted(schema, "now() - interval '1 minute'", "'key-' || (g % 20)", 100));
        jdbc.update("INSERT INTO " + schema + ".throttle_starts (run_id, fencing_token, environment, task_id,"
                + " throttle_key, started_at) SELECT gen_random_uuid(), 1, 'default', 'orders.confirm', 'hot', now()"
                + " FROM generate_series(1, 5)");
        jdbc.execute("VACUUM ANALYZE " + schema + ".runs");
        jdbc.execute("VACUUM ANALYZE " + schema + ".throttle_starts");
    }

    @AfterAll
    static void stop() {
        runlane.stop();
    }

    @Test
    @DisplayName("S-TH-2: behind 200,000 due runs of a saturated key, both claim statements read bounded rows and the"
            + " claims take the other keys' runs")
    void aSaturatedKeysBacklogIsNeverRead() {
        SqlTemplate sql = new SqlTemplate(schema);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        String plans = transaction.execute(status -> {
            status.setRollbackOnly();
            String generic = "ANALYZE, BUFFERS, COSTS OFF";
            return QueryPlans.explain(dataSource, ThrottledClaims.claimStatement(sql, 32), parameters()) + "\n"
                    + QueryPlans.explain(dataSource, ThrottledClaims.claimByKeyStatement(sql, 32), parameters())
                    + "\n"
                    + QueryPlans.explainGeneric(
                            dataSource, ThrottledClaims.claimStatement(sql, 32), parameters(), generic)
                    + "\n"
                    + QueryPlans.explainGeneric(
                            dataSource, ThrottledClaims.claimByKeyStatement(sql, 32), parameters(), generic);
        });

        assertThat(plans).doesNotContain("Seq Scan on runs").contains("runs_throttled_key_due_idx");
        assertThat(rowsPerScanOfRuns(plans))
                .isNotEmpty()
                .allSatisfy(rows -> assertThat(rows).isLessThanOrEqualTo(ROWS_BOUND));

        ThrottledClaims claims = new ThrottledClaims(JdbcClient.create(dataSource), transaction, sql, "default");
        List<ClaimedRun> claimed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            claimed.addAll(claims.claim(
                            "w-1",
                            "orders.confirm",
                            new ThrottlePolicy(5, Duration.ofHours(1)),
                            List.of("default"),
                            null,
                            32,
                            Duration.ofMinutes(1))
                    .runs());
        }
        assertThat(claimed)
                .hasSize(100)
                .noneSatisfy(run -> assertThat(run.run().payloadJson()).isNull());
        Integer hotClaimed = new JdbcTemplate(dataSource)
                .queryForObject(
                        "SELECT count(*) FROM " + schema + ".runs WHERE throttle_key = 'hot' AND status = 'RUNNING'",
                        Integer.class);
        assertThat(hotClaimed).isZero();
    }

    private static MapSqlParameterSource parameters() {
        return new MapSqlParameterSource()
                .addValue("worker", "explain", Types.VARCHAR)
                .addValue("environment", "default", Types.VARCHAR)
                .addValue("leaseMs", 60_000L, Types.BIGINT)
                .addValue("taskId", "orders.confirm", Types.VARCHAR)
                .addValue("queues", new SqlArrayValue("text", "default"))
                .addValue("limited", false, Types.BOOLEAN)
                .addValue("concurrencyLimit", Integer.MAX_VALUE, Types.INTEGER)
                .addValue("throttle", 5, Types.INTEGER)
                .addValue("periodMs", 3_600_000L, Types.BIGINT);
    }

    /** The rows each scan of {@code runs} in the plans returned over all its loops. */
    private static List<Long> rowsPerScanOfRuns(String plans) {
        List<Long> rows = new ArrayList<>();
        Matcher scan = SCAN_OF_RUNS.matcher(plans);
        while (scan.find()) {
            rows.add(Long.parseLong(scan.group(1)) * Long.parseLong(scan.group(2)));
        }
        return rows;
    }
}

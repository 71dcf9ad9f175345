package io.runlane.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.query.RunListing.Statement;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.QueryPlans;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The runs list's failure filters read the runs with a failure, never every retained run (S-OP-15; issue 32, item 9).
 * Among 1,000,000 finished runs of which 1,000 failed (10 with the code {@code upstream_unavailable} and the message
 * "Connection refused ...", the oldest of them), {@code EXPLAIN ANALYZE} of the list's statement by failure code, by
 * message prefix and by both shows a scan of {@code runs_failure_idx} (changeset 026), no sequential scan, and no scan
 * of {@code runs} returning more rows than the failed runs. The plans are printed for the record.
 */
@RunlaneDatabaseTest
class RunFailureFilterPlanIntegrationTests {

    private static final int RUNS = 1_000_000;

    private static final int FAILED = 1_000;

    private static final Pattern SCAN_OF_RUNS = Pattern.compile("Scan .* on runs .*rows=(\\d+) loops=(\\d+)");

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    @FreshSchema("failurefilter")
    private static String schema;

    private static RunListing listing;

    @BeforeAll
    static void fill() {
        TestRunlane.start(dataSource, schema, TestTasks.all()).stop();
        QueryPlans.insertFinishedRuns(dataSource, schema, RUNS, Duration.ofDays(30), 0);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // every 1,000th run failed; the 10 oldest of those with the rare code and message
        jdbc.update("""
                UPDATE %1$s.runs SET status = 'FAILED', failure_code = CASE WHEN n > %2$d - 10 THEN
                       'upstream_unavailable' ELSE 'exception' END,
                       failure_message = CASE WHEN n > %2$d - 10 THEN 'Connection refused: payments:443'
                                              ELSE 'Boom ' || n END
                FROM (SELECT id AS failed_id, row_number() OVER (ORDER BY id DESC) AS n
                      FROM (SELECT id, row_number() OVER (ORDER BY id) AS k FROM %1$s.runs) numbered
                      WHERE k %% 1000 = 0) failed
                WHERE id = failed_id
                """.formatted(schema, FAILED));
        jdbc.execute("VACUUM ANALYZE " + schema + ".runs");
        listing = new RunListing(JdbcClient.create(dataSource), new SqlTemplate(schema), "default");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"code", "message", "both"})
    @DisplayName("S-OP-15: a failure code or message prefix reads runs_failure_idx, not every retained run")
    void failureFiltersReadTheFailedRunsOnly(String filter) {
        RunQuery.Builder builder = RunQuery.builder();
        if (!filter.equals("message")) {
            builder.failureCodes(Set.of("upstream_unavailable"));
        }
        if (!filter.equals("code")) {
            builder.failureMessagePrefix("Connection refused");
        }
        RunQuery query = builder.build();
        Statement statement = listing.statement(query);

        String plan = QueryPlans.explain(dataSource, statement.sql(), statement.params());

        assertThat(plan).contains("runs_failure_idx").doesNotContain("Seq Scan on runs");
        Matcher scan = SCAN_OF_RUNS.matcher(plan);
        while (scan.find()) {
            assertThat(Long.parseLong(scan.group(1)) * Long.parseLong(scan.group(2)))
                    .as("rows a scan of runs returned")
                    .isLessThanOrEqualTo(FAILED);
        }
        assertThat(listing.list(query).items())
                .hasSize(10)
                .allSatisfy(run -> assertThat(run.failure().message()).startsWith("Connection refused"))
                .extracting(Run::status)
                .containsOnly(io.runlane.RunStatus.FAILED);
    }
}

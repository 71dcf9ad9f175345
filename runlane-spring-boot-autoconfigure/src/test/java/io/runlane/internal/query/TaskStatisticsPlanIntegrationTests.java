package io.runlane.internal.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.query.TaskStatistics.Scope;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.QueryPlans;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The console's task figures and charts read the range they report on from an index, never the whole runs table
 * (S-CO-22, changeset 021). Among 1,000,000 runs finished over 90 days (40 tasks, 5 queues) and 1,000 queued ones,
 * {@code EXPLAIN ANALYZE} of each statement for 1 h, 24 h and 7 d shows an index scan of {@code runs_finished_at_idx}
 * (all runs, one queue), {@code runs_task_finished_idx} (one task) or the partial indexes of active runs (200 of the
 * queued runs are throttled, so both waiting indexes are read), and no sequential scan of {@code runs}. Each series
 * has one interval per bucket, aligned on the epoch. The plans are printed for the record.
 */
@RunlaneDatabaseTest
class TaskStatisticsPlanIntegrationTests {

    private static final int RUNS = 1_000_000;

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    @FreshSchema("taskstats")
    private static String schema;

    private static TaskStatistics statistics;

    @BeforeAll
    static void fill() {
        TestRunlane.start(dataSource, schema, TestTasks.all()).stop();
        QueryPlans.insertFinishedRuns(dataSource, schema, RUNS, Duration.ofDays(90), 10);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.update("""
                INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                     created_at, updated_at, throttle_key)
                SELECT gen_random_uuid(), 'default', 'task-' || (g %% 40), 'queue-' || (g %% 5), 'QUEUED', '{}', 3,
                       now(), now(), now(), CASE WHEN g <= 200 THEN 'key' END
                FROM generate_series(1, 1000) g
                """.formatted(schema));
        jdbc.execute("VACUUM ANALYZE " + schema + ".runs");
        statistics = new TaskStatistics(JdbcClient.create(dataSource), new SqlTemplate(schema), "default");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"PT1H, PT1M", "PT24H, PT30M", "P7D, PT4H"})
    @DisplayName("S-CO-22: the tasks page reads the range of runs_finished_at_idx and the active runs' indexes")
    void theTasksPageReadsRangesOfIndexes(Duration range, Duration bucket) {
        String finished =
                explain(statistics.finishedByTask, parameters(range, bucket).addValue("scope_value", null));
        String active = explain(statistics.activeByTask, parameters(range, bucket));

        assertBounded(finished, "runs_finished_at_idx");
        assertThat(active)
                .contains("runs_waiting_due_idx", "runs_running_idx")
                .containsPattern("runs_throttled_(waiting|key)_due_idx")
                .doesNotContain("Seq Scan on runs");
        assertThat(statistics.finishedByTask(range)).hasSize(40);
        assertThat(statistics.activeByTask())
                .hasSize(40)
                .allSatisfy((task, counts) -> assertThat(counts).containsExactly(entry(RunStatus.QUEUED, 25L)));
    }

    @ParameterizedTest(name = "{0} {2}")
    @CsvSource({
        "PT1H, PT1M, ALL, , runs_finished_at_idx",
        "PT24H, PT30M, ALL, , runs_finished_at_idx",
        "P7D, PT4H, ALL, , runs_finished_at_idx",
        "PT1H, PT1M, QUEUE, queue-3, runs_finished_at_idx",
        "P7D, PT4H, QUEUE, queue-3, runs_finished_at_idx",
        "PT1H, PT1M, TASK, task-7, runs_task_finished_idx",
        "PT24H, PT30M, TASK, task-7, runs_task_finished_idx",
        "P7D, PT4H, TASK, task-7, runs_task_finished_idx"
    })
    @DisplayName("S-CO-22: each chart series reads only its range of an index of finished runs")
    void eachSeriesReadsItsRange(Duration range, Duration bucket, Scope scope, String value, String index) {
        String plan =
                explain(statistics.series.get(scope), parameters(range, bucket).addValue("scope_value", value));

        assertBounded(plan, index);
        List<TaskStatistics.Bucket> series = statistics.series(range, bucket, scope, value);
        assertThat(series).hasSize((int) (range.toSeconds() / bucket.toSeconds()) + 1);
        for (int i = 0; i < series.size(); i++) {
            Instant start = series.get(i).start();
            assertThat(start.getEpochSecond() % bucket.toSeconds())
                    .as("aligned on the epoch")
                    .isZero();
            assertThat(start.getNano()).isZero();
            if (i > 0) {
                assertThat(Duration.between(series.get(i - 1).start(), start)).isEqualTo(bucket);
            }
        }
        long finished =
                series.stream().mapToLong(TaskStatistics.Bucket::finished).sum();
        long expected = Math.round((double) RUNS
                * range.toSeconds()
                / Duration.ofDays(90).toSeconds()
                / (scope == Scope.ALL ? 1 : scope == Scope.QUEUE ? 5 : 40));
        assertThat(finished).isBetween(expected * 9 / 10, expected * 12 / 10);
    }

    /**
     * The plan reads a range of {@code index} from a lower bound on {@code finished_at}, and no whole table: an index
     * (only) scan, or, for a wide range such as 7 days of a busy table, a bitmap index scan of the same range whose
     * heap reads follow the runs in it.
     */
    private static void assertBounded(String plan, String index) {
        assertThat(plan)
                .containsPattern("(Index (Only )?Scan using " + index + " on runs|Bitmap Index Scan on " + index + ")"
                        + " .*\\n\\s*Index Cond: .*\\(finished_at >= ")
                .doesNotContain("Seq Scan on runs");
    }

    private static MapSqlParameterSource parameters(Duration range, Duration bucket) {
        return new MapSqlParameterSource()
                .addValue("environment", "default", Types.VARCHAR)
                .addValue("range_seconds", (double) range.toSeconds(), Types.DOUBLE)
                .addValue("bucket_seconds", (double) bucket.toSeconds(), Types.DOUBLE)
                .addValue("origin", OffsetDateTime.ofInstant(Instant.EPOCH, ZoneOffset.UTC));
    }

    private static String explain(String statement, MapSqlParameterSource parameters) {
        return QueryPlans.explain(dataSource, statement, parameters);
    }
}

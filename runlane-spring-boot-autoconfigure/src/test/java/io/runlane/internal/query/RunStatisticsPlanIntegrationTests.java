package io.runlane.internal.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.query.RunStatistics.QueueStatistics;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.QueryPlans;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import java.sql.Types;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The per-queue counts of the actuator endpoint, health, gauges and the console's overview read the active runs from
 * their partial indexes, never the whole runs table (S-MO-1, S-MO-3, issue 32). Among 200,000 finished runs, 1,000
 * waiting ones (200 of them throttled, 250 due in an hour) and 50 leased running ones over 5 queues, {@code EXPLAIN
 * ANALYZE} of the statement shows scans of {@code runs_waiting_due_idx}, one of the throttled runs' indexes ({@code runs_throttled_waiting_due_idx} or
 * {@code runs_throttled_key_due_idx}) and
 * {@code runs_running_idx} and no sequential scan of {@code runs}; the counts include the throttled runs. The plan is
 * printed for the record.
 */
@RunlaneDatabaseTest
class RunStatisticsPlanIntegrationTests {

    private static final int FINISHED = 200_000;

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    @FreshSchema("runstats")
    private static String schema;

    private static RunStatistics statistics;

    @BeforeAll
    static void fill() {
        TestRunlane.start(dataSource, schema, TestTasks.all()).stop();
        QueryPlans.insertFinishedRuns(dataSource, schema, FINISHED, Duration.ofDays(30), 0);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // 800 without a throttle (600 QUEUED and due, 200 SCHEDULED in an hour), 200 throttled QUEUED (150 due)
        jdbc.update("""
                INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                     created_at, updated_at, throttle_key)
                SELECT gen_random_uuid(), 'default', 'task-' || (g %% 40), 'queue-' || (g %% 5),
                       CASE WHEN g > 200 AND g <= 400 THEN 'SCHEDULED' ELSE 'QUEUED' END, '{}', 3,
                       CASE WHEN g <= 50 OR (g > 200 AND g <= 400) THEN now() + interval '1 hour'
                            ELSE now() - interval '1 minute' END,
                       now(), now(), CASE WHEN g <= 200 THEN 'key' END
                FROM generate_series(1, 1000) g
                """.formatted(schema));
        jdbc.update("""
                INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                     created_at, updated_at, attempts, fencing_token, lease_owner, lease_expires_at)
                SELECT gen_random_uuid(), 'default', 'task-' || (g %% 40), 'queue-' || (g %% 5), 'RUNNING', '{}', 3,
                       now() - interval '1 minute', now(), now(), 1, 1, 'w-1', now() + interval '1 minute'
                FROM generate_series(1, 50) g
                """.formatted(schema));
        jdbc.execute("VACUUM ANALYZE " + schema + ".runs");
        statistics = new RunStatistics(JdbcClient.create(dataSource), new SqlTemplate(schema), "default");
    }

    @Test
    @DisplayName("S-MO-1, S-MO-3: the per-queue counts read the waiting, throttled waiting and running runs' indexes")
    void thePerQueueCountsReadThePartialIndexesOfActiveRuns() {
        String plan = explain(statistics.byQueue);

        assertThat(plan)
                .contains("runs_waiting_due_idx", "runs_running_idx")
                .containsPattern("runs_throttled_(waiting|key)_due_idx")
                .doesNotContain("Seq Scan on runs");
        Map<String, QueueStatistics> byQueue = statistics.byQueue(List.of("queue-0", "idle"));
        assertThat(byQueue).containsOnlyKeys("idle", "queue-0", "queue-1", "queue-2", "queue-3", "queue-4");
        assertThat(byQueue.get("idle").activeCounts()).isEmpty();
        assertThat(byQueue.get("idle").oldestDueAge()).isNull();
        assertThat(byQueue.values().stream().filter(queue -> !queue.queue().equals("idle")))
                .allSatisfy(queue -> {
                    assertThat(queue.activeCounts())
                            .containsOnly(
                                    entry(RunStatus.QUEUED, 160L),
                                    entry(RunStatus.SCHEDULED, 40L),
                                    entry(RunStatus.RUNNING, 10L));
                    assertThat(queue.waiting()).isEqualTo(200L);
                    assertThat(queue.due()).isEqualTo(150L);
                    assertThat(queue.oldestDueAge()).isBetween(Duration.ofMinutes(1), Duration.ofMinutes(5));
                });
    }

    private static String explain(String statement) {
        return QueryPlans.explain(
                dataSource, statement, new MapSqlParameterSource().addValue("environment", "default", Types.VARCHAR));
    }
}

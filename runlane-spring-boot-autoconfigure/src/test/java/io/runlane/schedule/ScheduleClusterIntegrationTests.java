package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.OverlapPolicy;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.TriggerOutcome;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-SC-2: several runtimes, each with its own connection pool and firer, share one database and fire an every-second
 * schedule for over ten seconds. Every occurrence becomes exactly one run, none is missing while at least one
 * runtime is up, and no firer ever needed the idempotency key to avoid a duplicate: the row lock did.
 */
@RunlaneDatabaseTest
class ScheduleClusterIntegrationTests {

    /** Counts trigger answers that were not a creation (a second firer reaching an occurrence already fired). */
    static final class Answers implements EngineListener {

        final AtomicInteger created = new AtomicInteger();

        final AtomicInteger existing = new AtomicInteger();

        @Override
        public void triggered(String taskId, TriggerOutcome outcome) {
            (outcome == TriggerOutcome.CREATED ? created : existing).incrementAndGet();
        }
    }

    @Test
    @DisplayName("S-SC-2: two runtimes fire an every-second schedule for 10 s: one run per occurrence, none missing")
    void twoRuntimes(
            @Pool(size = 3) HikariDataSource first,
            @Pool(size = 3) HikariDataSource second,
            @FreshSchema("schedule_cluster") String schema) {
        fireAcross(List.of(first, second), schema, false);
    }

    @Test
    @DisplayName("S-SC-2: three runtimes, one stopped midway: one run per occurrence, none missing")
    void threeRuntimesOneStopped(
            @Pool(size = 3) HikariDataSource first,
            @Pool(size = 3) HikariDataSource second,
            @Pool(size = 3) HikariDataSource third,
            @FreshSchema("schedule_cluster") String schema) {
        fireAcross(List.of(first, second, third), schema, true);
    }

    @Test
    @DisplayName("S-SC-2: the firer sleeps until the next due time, not a whole poll, and an upsert wakes it")
    void firerWakesAtTheNextDueTime(
            @Pool(size = 3) HikariDataSource pool, @FreshSchema("schedule_wake") String schema) {
        TestRunlane runlane = null;
        try {
            runlane = TestRunlane.withSchedules(
                    pool,
                    schema,
                    new ScheduleSettings(Duration.ofHours(1), Duration.ofHours(1)),
                    ExecutionSettings.defaults(),
                    EngineListener.NONE,
                    new ScheduleTasks.Report());
            runlane.startFirer();
            TestRunlane started = runlane;
            started.template()
                    .schedules()
                    .upsert(ScheduleDefinition.builder("wake", "schedules.report")
                            .every(Duration.ofSeconds(1))
                            .payload(Map.of("name", "wake", "copies", 0))
                            .overlap(OverlapPolicy.ALLOW)
                            .build());

            await().atMost(Duration.ofSeconds(30))
                    .alias("with an hour's poll interval, only the wake-up and the next-due delay can fire these")
                    .until(() -> runCount(started, "wake") >= 3);
        } finally {
            if (runlane != null) {
                runlane.stop();
            }
        }
    }

    /** Fires one schedule across one runtime per pool, the pools standing for separate application instances. */
    private void fireAcross(List<HikariDataSource> pools, String schema, boolean stopOneMidway) {
        List<TestRunlane> runtimes = new ArrayList<>();
        List<Answers> answers = new ArrayList<>();
        try {
            for (HikariDataSource pool : pools) {
                Answers answer = new Answers();
                answers.add(answer);
                runtimes.add(TestRunlane.withSchedules(
                        pool,
                        schema,
                        new ScheduleSettings(Duration.ofMillis(500), Duration.ofHours(1)),
                        ExecutionSettings.defaults(),
                        answer,
                        new ScheduleTasks.Report()));
            }
            TestRunlane observer = runtimes.get(0);
            String id = "tick-" + pools.size();
            observer.template()
                    .schedules()
                    .upsert(ScheduleDefinition.builder(id, "schedules.report")
                            .every(Duration.ofSeconds(1))
                            .payload(Map.of("name", "tick", "copies", 0))
                            .overlap(OverlapPolicy.ALLOW)
                            .build());
            runtimes.forEach(TestRunlane::startFirer);

            if (stopOneMidway) {
                await().atMost(Duration.ofSeconds(30)).until(() -> runCount(observer, id) >= 4);
                runtimes.get(1).stop();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> runCount(observer, id) >= 11);
            runtimes.forEach(TestRunlane::stop);

            List<Long> occurrences = observer.jdbc()
                    .queryForList(
                            "SELECT substring(idempotency_key FROM length(?) + 1)::bigint FROM " + schema
                                    + ".runs WHERE idempotency_key LIKE ? ORDER BY 1",
                            Long.class,
                            "schedule." + id + ".",
                            "schedule." + id + ".%");
            long firstOccurrence = occurrences.get(0);
            assertThat(occurrences)
                    .as("one run per occurrence, every second from the first, none missing")
                    .containsExactlyElementsOf(LongStream.range(0, occurrences.size())
                            .map(k -> firstOccurrence + k * 1000)
                            .boxed()
                            .toList());
            ScheduleInfo info = observer.template().schedules().get(id).orElseThrow();
            assertThat(info.lastFireAt().toEpochMilli()).isEqualTo(occurrences.get(occurrences.size() - 1));
            assertThat(info.skippedCount()).isZero();
            assertThat(answers.stream()
                            .mapToInt(answer -> answer.existing.get())
                            .sum())
                    .as("no firer reached an occurrence another had fired")
                    .isZero();
            assertThat(answers.stream().mapToInt(answer -> answer.created.get()).sum())
                    .isEqualTo(occurrences.size());
        } finally {
            runtimes.forEach(TestRunlane::stop);
        }
    }

    private static long runCount(TestRunlane runlane, String id) {
        return runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE idempotency_key LIKE ?",
                        Long.class,
                        "schedule." + id + ".%");
    }
}

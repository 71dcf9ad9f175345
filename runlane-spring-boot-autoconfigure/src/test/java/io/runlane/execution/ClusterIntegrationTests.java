package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerRequest;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-EX-1: independent runtimes on one database execute every run exactly once. Each runtime has its own connection
 * pool, worker, heartbeats and maintenance, as separate application instances would.
 */
@RunlaneDatabaseTest
class ClusterIntegrationTests {

    static final Map<UUID, AtomicInteger> EXECUTIONS = new ConcurrentHashMap<>();

    static final Map<UUID, String> EXECUTED_BY = new ConcurrentHashMap<>();

    @Task(id = "cluster.noop")
    public static class Noop implements TaskHandler<Noop.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {
            EXECUTIONS
                    .computeIfAbsent(context.runId(), id -> new AtomicInteger())
                    .incrementAndGet();
            EXECUTED_BY.put(context.runId(), Thread.currentThread().getName());
        }
    }

    /** Counts outcomes that were not a plain success. */
    static final class Outcomes implements EngineListener {

        final List<String> unexpected = new CopyOnWriteArrayList<>();

        final AtomicInteger succeeded = new AtomicInteger();

        @Override
        public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
            if (result.equals("succeeded")) {
                succeeded.incrementAndGet();
            } else {
                unexpected.add(claimed.run().id() + ": " + result);
            }
        }
    }

    @Test
    @DisplayName("S-EX-1: two runtimes execute 10,000 runs, each exactly once, none left active, no errors")
    void twoRuntimesExecuteEveryRunExactlyOnce(
            @Pool(size = 12) HikariDataSource first,
            @Pool(size = 12) HikariDataSource second,
            @FreshSchema("cluster") String schema) {
        int runs = 10_000;
        List<HikariDataSource> pools = List.of(first, second);
        List<TestRunlane> runtimes = new ArrayList<>();
        List<Outcomes> outcomes = List.of(new Outcomes(), new Outcomes());
        try {
            for (int i = 0; i < 2; i++) {
                runtimes.add(TestRunlane.withExecution(
                                pools.get(i),
                                schema,
                                UnaryOperator.identity(),
                                ExecutionSettings.defaults().withWorker(8, Duration.ofMillis(200)),
                                outcomes.get(i),
                                new Noop())
                        .startMaintenance());
            }
            List<UUID> runIds = new ArrayList<>();
            for (int batch = 0; batch < runs / 1000; batch++) {
                int offset = batch * 1000;
                runIds.addAll(runtimes
                        .get(batch % 2)
                        .template()
                        .triggerAll(IntStream.range(offset, offset + 1000)
                                .mapToObj(index -> TriggerRequest.of("cluster.noop", new Noop.Payload(index)))
                                .toList())
                        .stream()
                        .map(result -> result.runId())
                        .toList());
            }
            runtimes.forEach(TestRunlane::startWorker);

            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> runtimes.get(0)
                                    .jdbc()
                                    .queryForObject(
                                            "SELECT count(*) FROM " + schema + ".runs WHERE finished_at IS NULL",
                                            Long.class)
                            == 0);

            assertThat(runIds).doesNotHaveDuplicates().hasSize(runs);
            assertThat(runIds)
                    .allSatisfy(runId -> assertThat(EXECUTIONS.get(runId))
                            .as("executions of run %s", runId)
                            .hasValue(1));
            assertThat(runtimes.get(0)
                            .jdbc()
                            .queryForObject(
                                    "SELECT count(*) FROM " + schema
                                            + ".runs WHERE status = 'SUCCEEDED' AND attempts = 1",
                                    Long.class))
                    .isEqualTo(runs);
            assertThat(outcomes)
                    .allSatisfy(outcome -> assertThat(outcome.unexpected).isEmpty());
            assertThat(outcomes)
                    .allSatisfy(outcome -> assertThat(outcome.succeeded.get())
                            .as("both runtimes took part")
                            .isPositive());
            assertThat(outcomes.get(0).succeeded.get()
                            + outcomes.get(1).succeeded.get())
                    .isEqualTo(runs);
        } finally {
            runtimes.forEach(TestRunlane::stop);
        }
    }
}

package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.runlane.PruneRequest;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * S-MO-3: Runlane's meters in a running application with Boot's meter registry: triggers, attempts and their timing by task,
 * queue gauges, pruned runs, all with bounded tags.
 */
@SpringBootTest(classes = ActuatorTestApplication.class)
class RunlaneMetricsIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_metrics");
    }

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private MeterRegistry registry;

    @Test
    void triggersAndAttemptsAreCountedAndTimedByTask() {
        double created = count("runlane.triggers", "task", "actuate.succeed", "outcome", "created");
        double existing = count("runlane.triggers", "task", "actuate.succeed", "outcome", "returned_existing");
        double failed = count("runlane.attempts", "task", "actuate.fail", "result", "failed");

        runlane.trigger("actuate.succeed", new Payload("metrics-1", "metrics-key"));
        runlane.trigger("actuate.succeed", new Payload("metrics-1", "metrics-key"));
        runlane.trigger("actuate.succeed", Payload.of("metrics-2"));
        runlane.trigger("actuate.fail", Payload.of("metrics-3"));

        assertThat(count("runlane.triggers", "task", "actuate.succeed", "outcome", "created"))
                .isEqualTo(created + 2);
        assertThat(count("runlane.triggers", "task", "actuate.succeed", "outcome", "returned_existing"))
                .isEqualTo(existing + 1);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(count("runlane.attempts", "task", "actuate.fail", "result", "failed"))
                        .isEqualTo(failed + 1));
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> assertThat(count("runlane.attempts", "task", "actuate.succeed", "result", "succeeded"))
                                .isGreaterThanOrEqualTo(2));
        Timer duration = registry.get("runlane.attempt.duration")
                .tags("task", "actuate.succeed", "result", "succeeded")
                .timer();
        assertThat(duration.count()).isGreaterThanOrEqualTo(2);
        Timer delay = registry.get("runlane.trigger.start.delay")
                .tags("task", "actuate.succeed")
                .timer();
        assertThat(delay.count()).isGreaterThanOrEqualTo(2);
        assertThat(delay.max(TimeUnit.SECONDS)).isLessThan(60);
    }

    @Test
    @DisplayName("S-DB-1: folded triggers are counted as runlane.trigger.debounced by task, and as outcome debounced")
    void foldedTriggersAreCounted() {
        double folded = count("runlane.trigger.debounced", "task", "actuate.succeed");
        double outcome = count("runlane.triggers", "task", "actuate.succeed", "outcome", "debounced");
        TriggerOptions options = TriggerOptions.builder()
                .debounceKey("metrics-" + UUID.randomUUID())
                .debounce(Duration.ofHours(1))
                .build();

        runlane.trigger("actuate.succeed", Payload.of("debounce-1"), options);
        runlane.trigger("actuate.succeed", Payload.of("debounce-2"), options);
        runlane.trigger("actuate.succeed", Payload.of("debounce-3"), options);

        assertThat(count("runlane.trigger.debounced", "task", "actuate.succeed"))
                .isEqualTo(folded + 2);
        assertThat(count("runlane.triggers", "task", "actuate.succeed", "outcome", "debounced"))
                .isEqualTo(outcome + 2);
    }

    @Test
    void queueGaugesShowWaitingRunsAndTheOldestDueAge() {
        runlane.trigger("actuate.park", Payload.of("gauge-1"));
        runlane.trigger("actuate.park", Payload.of("gauge-2"));

        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(registry.get("runlane.queue.depth")
                                .tag("queue", "parked")
                                .gauge()
                                .value())
                        .isGreaterThanOrEqualTo(2));
        TimeGauge oldest = registry.get("runlane.queue.oldest.due.age")
                .tag("queue", "parked")
                .timeGauge();
        assertThat(oldest.value(TimeUnit.MILLISECONDS)).isNotNegative().isNotNaN();
        assertThat(registry.get("runlane.queue.depth")
                        .tag("queue", "default")
                        .gauge()
                        .value())
                .isNotNaN();
    }

    @Test
    void operatorPrunesAreCounted() {
        double before = count("runlane.runs.pruned", "trigger", "operator");
        UUID runId = runlane.trigger("actuate.park", Payload.of("pruned")).runId();
        runlane.runs().cancel(runId, "to prune");

        long pruned = runlane.runs()
                .prune(PruneRequest.olderThan(Duration.ZERO).withStatuses(RunStatus.CANCELLED))
                .runs();

        assertThat(pruned).isPositive();
        assertThat(count("runlane.runs.pruned", "trigger", "operator")).isEqualTo(before + pruned);
        assertThat(registry.get("runlane.leases.recovered").counter().count()).isNotNegative();
    }

    @Test
    void tagsAreBoundedToTasksQueuesAndOutcomes() {
        runlane.trigger("actuate.succeed", Payload.of("tags"));

        assertThat(registry.getMeters())
                .map(Meter::getId)
                .filteredOn(id -> id.getName().startsWith("runlane."))
                .isNotEmpty()
                .allSatisfy(id -> assertThat(id.getTags())
                        .map(Tag::getKey)
                        // the observations runlane.trigger and runlane.attempt add their own low-cardinality keys
                        .isSubsetOf(
                                "task",
                                "outcome",
                                "result",
                                "queue",
                                "trigger",
                                "runlane.task",
                                "runlane.queue",
                                "runlane.outcome",
                                "error"));
    }

    private double count(String name, String... tags) {
        Counter counter = registry.find(name).tags(tags).counter();
        return (counter != null) ? counter.count() : 0;
    }
}

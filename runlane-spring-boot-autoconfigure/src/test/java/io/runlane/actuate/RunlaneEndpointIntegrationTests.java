package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * S-MO-1: the {@code runlane} endpoint over HTTP with its default, read-only access: the summary, runs by id and by status,
 * and write operations that are not mapped at all.
 */
@SpringBootTest(
        classes = ActuatorTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=runlane,health",
            "management.endpoint.runlane.show-values=always"
        })
class RunlaneEndpointIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_endpoint");
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RunlaneTemplate runlane;

    private RestTestClient client;

    @BeforeEach
    void client() {
        client = RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + port + "/actuator/runlane")
                .build();
    }

    @Test
    @DisplayName("S-MO-1, S-PR-1, S-TH-1: the summary shows each task's policy, queues, the worker and maintenance")
    void summaryShowsTasksQueuesTheWorkerAndMaintenance() {
        runlane.trigger("actuate.park", Payload.of("summary"));

        client.get()
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.environment")
                .isEqualTo("default")
                .jsonPath("$.tasks[*].id")
                .isEqualTo(List.of("actuate.fail", "actuate.park", "actuate.succeed"))
                .jsonPath("$.tasks[1].queue")
                .isEqualTo("parked")
                .jsonPath("$.tasks[1].maxAttempts")
                .isEqualTo(3)
                .jsonPath("$.tasks[1].idempotencyKeyTtl")
                .isEqualTo("30d")
                .jsonPath("$.tasks[1].priority")
                .isEqualTo(-3)
                .jsonPath("$.tasks[1].throttle.limit")
                .isEqualTo(5)
                .jsonPath("$.tasks[1].throttle.period")
                .isEqualTo("PT1S")
                .jsonPath("$.tasks[0].priority")
                .isEqualTo(0)
                .jsonPath("$.tasks[0].throttle")
                .doesNotExist()
                .jsonPath("$.queues.parked.counts.QUEUED")
                .value(Integer.class, queued -> assertThat(queued).isPositive())
                .jsonPath("$.queues.parked.counts.RUNNING")
                .isEqualTo(0)
                .jsonPath("$.queues.parked.waiting")
                .value(Integer.class, waiting -> assertThat(waiting).isPositive())
                .jsonPath("$.queues.parked.due")
                .value(Integer.class, due -> assertThat(due).isPositive())
                .jsonPath("$.queues.parked.oldestDueAge")
                .value(
                        String.class,
                        age -> assertThat(Duration.parse(age).isNegative()).isFalse())
                .jsonPath("$.queues.parked.concurrencyLimit")
                .isEqualTo(1)
                .jsonPath("$.queues.default")
                .exists()
                .jsonPath("$.worker.id")
                .value(String.class, id -> assertThat(id).startsWith("worker-"))
                .jsonPath("$.worker.running")
                .isEqualTo(true)
                .jsonPath("$.worker.inFlight")
                .isNumber()
                .jsonPath("$.worker.concurrency")
                .isEqualTo(2)
                .jsonPath("$.maintenance.recovery.running")
                .isEqualTo(true)
                .jsonPath("$.maintenance.pruning.running")
                .isEqualTo(true)
                .jsonPath("$.maintenance.pruning.lastPruned")
                .isEqualTo(0);
    }

    @Test
    void runIsReadByIdWithItsAttemptsAndEvents() {
        UUID runId = runlane.trigger("actuate.succeed", Payload.of("lookup")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(runId).orElseThrow().status() == RunStatus.SUCCEEDED);

        client.get()
                .uri("/runs/{id}", runId)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.run.id")
                .isEqualTo(runId.toString())
                .jsonPath("$.run.taskId")
                .isEqualTo("actuate.succeed")
                .jsonPath("$.run.status")
                .isEqualTo("SUCCEEDED")
                .jsonPath("$.run.payloadJson.name")
                .isEqualTo("lookup")
                .jsonPath("$.attempts.length()")
                .isEqualTo(1)
                .jsonPath("$.attempts[0].outcome")
                .isEqualTo("SUCCEEDED")
                .jsonPath("$.events[*].type")
                .isEqualTo(List.of("CREATED", "CLAIMED", "SUCCEEDED"));
    }

    @Test
    @DisplayName("S-SG-5, S-MO-1: a run read by id shows its signals and their consumption")
    void runIsReadWithItsSignals() {
        UUID runId = runlane.trigger(
                        "actuate.succeed",
                        Payload.of("signalled"),
                        io.runlane.TriggerOptions.builder()
                                .delay(Duration.ofHours(1))
                                .build())
                .runId();
        runlane.signals().send(runId, "nudge", java.util.Map.of("by", "operator"), "nudge-1");

        client.get()
                .uri("/runs/{id}", runId)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.signals.length()")
                .isEqualTo(1)
                .jsonPath("$.signals[0].name")
                .isEqualTo("nudge")
                .jsonPath("$.signals[0].payloadJson.by")
                .isEqualTo("operator")
                .jsonPath("$.signals[0].deduplicationKey")
                .isEqualTo("nudge-1")
                .jsonPath("$.signals[0].consumedAt")
                .doesNotExist();
    }

    @Test
    void unknownRunAnswers404() {
        client.get()
                .uri("/runs/{id}", UUID.randomUUID())
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    @Test
    void unknownCollectionAnswers404() {
        client.get().uri("/jobs").exchange().expectStatus().isNotFound();
        client.get()
                .uri("/jobs/{id}", UUID.randomUUID())
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    @Test
    void malformedRunIdAnswers400() {
        client.get().uri("/runs/not-a-run-id").exchange().expectStatus().isBadRequest();
    }

    @Test
    void runsAreListedByStatusOnePageAtATime() {
        UUID first = runlane.trigger("actuate.park", Payload.of("page-1")).runId();
        UUID second = runlane.trigger("actuate.park", Payload.of("page-2")).runId();

        Map<?, ?> page = client.get()
                .uri("/runs?status=QUEUED&task=actuate.park&limit=1")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        assertThat((List<?>) page.get("runs")).hasSize(1);
        assertThat(page.get("nextCursor")).isNotNull();

        client.get()
                .uri(builder -> builder.path("/runs")
                        .queryParam("status", "queued,scheduled")
                        .queryParam("task", "actuate.park")
                        .queryParam("limit", 500)
                        .build())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs[*].id")
                .value(List.class, ids -> assertThat(ids).contains(first.toString(), second.toString()))
                .jsonPath("$.runs[*].status")
                .value(List.class, statuses -> assertThat(statuses).containsOnly("QUEUED"));

        client.get()
                .uri("/runs?status=QUEUED&task=actuate.park&limit=1&cursor={cursor}", page.get("nextCursor"))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs.length()")
                .isEqualTo(1)
                .jsonPath("$.runs[0].id")
                .value(
                        String.class,
                        id -> assertThat(id).isNotEqualTo(((Map<?, ?>) ((List<?>) page.get("runs")).get(0)).get("id")));
    }

    @Test
    @DisplayName("S-RV-4: the runs listing filters by failure code")
    void runsAreListedByFailureCode() {
        UUID failed = runlane.trigger("actuate.fail", Payload.of("by-code")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);

        client.get()
                .uri("/runs?task=actuate.fail&failureCode=non_retryable,upstream_unavailable&limit=500")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs[*].id")
                .value(List.class, ids -> assertThat(ids).contains(failed.toString()));
        client.get()
                .uri("/runs?task=actuate.fail&failureCode=upstream_unavailable&limit=500")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs.length()")
                .isEqualTo(0);
    }

    @Test
    @DisplayName("S-OP-15, S-OP-14: the runs listing filters by priority range, failure message prefix, key prefixes,"
            + " source and schedule")
    void runsAreListedByPriorityPrefixesSourceAndSchedule() {
        UUID urgent = runlane.trigger(
                        "actuate.park",
                        Payload.of("urgent"),
                        TriggerOptions.builder()
                                .priority(7)
                                .idempotencyKey("act-prefix-1")
                                .singletonKey("act-tenant-1")
                                .build())
                .runId();
        UUID normal = runlane.trigger(
                        "actuate.park",
                        Payload.of("normal"),
                        TriggerOptions.builder().idempotencyKey("act-prefix-2").build())
                .runId();
        UUID failed = runlane.trigger("actuate.fail", Payload.of("act-50%")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);

        assertListed("/runs?task=actuate.park&minPriority=7&maxPriority=7&limit=500", List.of(urgent), List.of(normal));
        assertListed("/runs?idempotencyKeyPrefix=act-prefix-&limit=500", List.of(urgent, normal), List.of(failed));
        assertListed("/runs?singletonKeyPrefix=act-tenant&limit=500", List.of(urgent), List.of(normal));
        assertListed(
                "/runs?failureMessagePrefix={prefix}&limit=500", List.of(failed), List.of(urgent), "refused act-50%");
        assertListed("/runs?failureMessagePrefix={prefix}&limit=500", List.of(), List.of(failed), "refused act-5_");
        assertListed("/runs?source=trigger&task=actuate.park&limit=500", List.of(urgent, normal), List.of());
        assertListed("/runs?source=SCHEDULE,RERUN&task=actuate.park&limit=500", List.of(), List.of(urgent, normal));
        assertListed("/runs?schedule=act-none&limit=500", List.of(), List.of(urgent, normal, failed));
    }

    private void assertListed(String uri, List<UUID> listed, List<UUID> notListed, Object... variables) {
        client.get()
                .uri(uri, variables)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs[*].id")
                .value(List.class, ids -> {
                    List<String> shown =
                            ((List<?>) ids).stream().map(String::valueOf).toList();
                    listed.forEach(id -> assertThat(shown).as(uri).contains(id.toString()));
                    notListed.forEach(id -> assertThat(shown).as(uri).doesNotContain(id.toString()));
                });
    }

    @Test
    @DisplayName("S-OP-15, S-OP-14: a bad priority, prefix, source or schedule id answers 400")
    void malformedNewFiltersAnswer400() {
        List<List<String>> bad = List.of(
                List.of("minPriority", "101"),
                List.of("maxPriority", "-101"),
                List.of("minPriority", "high"),
                List.of("failureMessagePrefix", "  "),
                List.of("idempotencyKeyPrefix", "a:b"),
                List.of("singletonKeyPrefix", " "),
                List.of("source", "cron"),
                List.of("schedule", "a:b"));
        for (List<String> parameter : bad) {
            client.get()
                    .uri("/runs?" + parameter.get(0) + "={value}", parameter.get(1))
                    .exchange()
                    .expectStatus()
                    .isBadRequest();
        }
        client.get()
                .uri("/runs?minPriority=5&maxPriority=4")
                .exchange()
                .expectStatus()
                .isBadRequest();
    }

    @Test
    void malformedListingInputAnswers400() {
        client.get().uri("/runs?status=SLEEPING").exchange().expectStatus().isBadRequest();
        client.get().uri("/runs?cursor=not-a-cursor").exchange().expectStatus().isBadRequest();
    }

    @Test
    void writeOperationsAreNotAvailableByDefault() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("read-only")).runId();

        client.post()
                .uri("/runs/{id}/cancel", runId)
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("reason", "not allowed"))
                .exchange()
                .expectStatus()
                .isNotFound();
        UUID cancelled =
                runlane.trigger("actuate.park", Payload.of("read-only-resume")).runId();
        runlane.runs().cancel(cancelled, "to resume");
        client.post()
                .uri("/runs/{id}/resume", cancelled)
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of())
                .exchange()
                .expectStatus()
                .isNotFound();
        client.post()
                .uri("/prune")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("olderThan", "0s"))
                .exchange()
                .expectStatus()
                .isEqualTo(405);
        client.post()
                .uri("/idempotency-keys/reset")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("taskId", "actuate.succeed", "key", "k"))
                .exchange()
                .expectStatus()
                .isEqualTo(405);

        assertThat(runlane.runs().get(runId).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.runs().get(cancelled).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }
}

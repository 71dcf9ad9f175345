package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * The {@code runlane} endpoint's write operations over HTTP once {@code management.endpoint.runlane.access} grants
 * them: cancel, retry, rerun, resume, reset an idempotency key and prune, with 404, 409 and 400 for refused requests.
 */
@SpringBootTest(
        classes = ActuatorTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=runlane,health",
            "management.endpoint.runlane.access=unrestricted",
            "spring.web.error.include-message=always"
        })
class RunlaneEndpointWriteIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_write");
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
    void cancelEndsAWaitingRunAndRecordsTheReason() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("cancel")).runId();

        post("/runs/{id}/cancel", Map.of("reason", "duplicate order"), runId)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.run.id")
                .isEqualTo(runId.toString())
                .jsonPath("$.run.status")
                .isEqualTo("CANCELLED")
                .jsonPath("$.events[-1:].detail")
                .value(details -> assertThat(details.toString()).contains("duplicate order"));

        assertThat(runlane.runs().get(runId).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }

    @Test
    void cancelWithoutABodyIsAccepted() {
        UUID runId =
                runlane.trigger("actuate.park", Payload.of("cancel-no-body")).runId();

        client.post()
                .uri("/runs/{id}/cancel", runId)
                .contentType(MediaType.APPLICATION_JSON)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.run.status")
                .isEqualTo("CANCELLED");
    }

    @Test
    void retryOfAFailedRunCreatesALinkedRun() {
        UUID failed = finished(runlane.trigger("actuate.fail", Payload.of("retry")), RunStatus.FAILED);

        Map<?, ?> run = runOf(post("/runs/{id}/retry", Map.of(), failed));

        assertThat(run.get("sourceRunId")).isEqualTo(failed.toString());
        assertThat(run.get("taskId")).isEqualTo("actuate.fail");
        finished(UUID.fromString((String) run.get("id")), RunStatus.FAILED);
        assertThat(runlane.runs().get(failed).orElseThrow().status())
                .as("the source is untouched")
                .isEqualTo(RunStatus.FAILED);
    }

    @Test
    void retryOfARunThatDidNotFailAnswers409() {
        UUID succeeded = finished(runlane.trigger("actuate.succeed", Payload.of("no-retry")), RunStatus.SUCCEEDED);

        post("/runs/{id}/retry", Map.of(), succeeded)
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("run_state_invalid");
    }

    @Test
    void rerunOfASucceededRunCreatesALinkedRunThatRunsAgain() {
        UUID succeeded = finished(runlane.trigger("actuate.succeed", Payload.of("rerun")), RunStatus.SUCCEEDED);

        Map<?, ?> run = runOf(post("/runs/{id}/rerun", Map.of(), succeeded));

        assertThat(run.get("sourceRunId")).isEqualTo(succeeded.toString());
        assertThat(run.get("id")).isNotEqualTo(succeeded.toString());
        finished(UUID.fromString((String) run.get("id")), RunStatus.SUCCEEDED);
    }

    @Test
    void resumeOfACancelledRunQueuesTheSameRunAgain() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("resume")).runId();
        runlane.runs().cancel(runId, "paused by hand");

        Map<?, ?> run = runOf(post("/runs/{id}/resume", Map.of(), runId));

        assertThat(run.get("id")).isEqualTo(runId.toString());
        assertThat(run.get("status")).isEqualTo("QUEUED");
        assertThat(runlane.runs()
                        .events(runId)
                        .get(runlane.runs().events(runId).size() - 1)
                        .type())
                .isEqualTo(RunEventType.RESUMED);
    }

    @Test
    void resumeRefusalsAnswer409AndAnUnknownRun404() {
        UUID succeeded = finished(runlane.trigger("actuate.succeed", Payload.of("no-resume")), RunStatus.SUCCEEDED);
        post("/runs/{id}/resume", Map.of(), succeeded)
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("run_state_invalid");

        TriggerOptions keyed = TriggerOptions.builder()
                .idempotencyKey("resume-key")
                .idempotencyKeyTtl(IdempotencyKeyTtl.active())
                .build();
        UUID cancelled =
                runlane.trigger("actuate.park", Payload.of("keyed"), keyed).runId();
        runlane.runs().cancel(cancelled, "replaced");
        UUID owner = runlane.trigger("actuate.park", Payload.of("keyed"), keyed).runId();
        post("/runs/{id}/resume", Map.of(), cancelled)
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("idempotency_key_active")
                .jsonPath("$.message")
                .value(String.class, message -> assertThat(message).contains(owner.toString()));
        assertThat(runlane.runs().get(cancelled).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);

        post("/runs/{id}/resume", Map.of(), UUID.randomUUID())
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("run_not_found");
    }

    @Test
    void actionsOnAnUnknownRunAnswer404() {
        post("/runs/{id}/cancel", Map.of(), UUID.randomUUID())
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("run_not_found");
        post("/runs/{id}/rerun", Map.of(), UUID.randomUUID()).expectStatus().isNotFound();
    }

    @Test
    void malformedActionsAnswer400() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("malformed")).runId();

        post("/runs/{id}/pause", Map.of(), runId).expectStatus().isBadRequest();
        post("/runs/{id}/cancel", Map.of(), "not-a-run-id").expectStatus().isBadRequest();
        post("/prune", Map.of("olderThan", "a week")).expectStatus().isBadRequest();
        post("/prune", Map.of("olderThan", "7d", "statuses", "SUCCEEDED,QUEUED"))
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.message")
                .value(String.class, message -> assertThat(message).contains("QUEUED"));
        post("/prune", Map.of()).expectStatus().isBadRequest();
        post("/prune", Map.of("olderThan", "7d", "maxRuns", "0")).expectStatus().isBadRequest();
        post("/idempotency-keys/reset", Map.of("taskId", "actuate.succeed", "key", " padded "))
                .expectStatus()
                .isBadRequest();

        assertThat(runlane.runs().get(runId).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    void resetFreesARetainedIdempotencyKey() {
        Payload payload = new Payload("reset", "reset-key");
        UUID owner = finished(runlane.trigger("actuate.succeed", payload), RunStatus.SUCCEEDED);
        assertThat(runlane.trigger("actuate.succeed", payload).runId()).isEqualTo(owner);

        post("/idempotency-keys/reset", Map.of("taskId", "actuate.succeed", "key", "reset-key"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.reset")
                .isEqualTo(true);

        assertThat(runlane.trigger("actuate.succeed", payload).created()).isTrue();
        post("/idempotency-keys/reset", Map.of("taskId", "actuate.succeed", "key", "no-owner"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.reset")
                .isEqualTo(false);
        post("/idempotency-keys/reset", Map.of("taskId", "no.such.task", "key", "k"))
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("task_not_found");
    }

    @Test
    void resetOfAnActiveOwnerAnswers409() {
        Payload payload = new Payload("active", "active-key");
        TriggerResult parked = runlane.trigger(
                "actuate.park",
                payload,
                TriggerOptions.builder().idempotencyKey("active-key").build());

        post("/idempotency-keys/reset", Map.of("taskId", "actuate.park", "key", "active-key"))
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("idempotency_key_active");
        assertThat(runlane.runs().get(parked.runId()).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    void prunedRunsAreGone() {
        UUID cancelled = runlane.trigger("actuate.park", Payload.of("prune")).runId();
        runlane.runs().cancel(cancelled, "to prune");
        UUID waiting = runlane.trigger("actuate.park", Payload.of("keep")).runId();

        post("/prune", Map.of("olderThan", "0s", "statuses", "CANCELLED"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs")
                .value(Integer.class, runs -> assertThat(runs).isPositive())
                .jsonPath("$.complete")
                .isEqualTo(true);

        client.get().uri("/runs/{id}", cancelled).exchange().expectStatus().isNotFound();
        assertThat(runlane.runs().get(waiting)).isPresent();
    }

    @Test
    void pruneStopsAtMaxRunsAndSaysMoreRunsMatch() {
        for (String name : new String[] {"bounded-1", "bounded-2"}) {
            runlane.runs()
                    .cancel(runlane.trigger("actuate.park", Payload.of(name)).runId(), "to prune");
        }

        post("/prune", Map.of("olderThan", "0s", "statuses", "CANCELLED", "maxRuns", "1"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs")
                .isEqualTo(1)
                .jsonPath("$.complete")
                .isEqualTo(false);
    }

    private RestTestClient.ResponseSpec post(String path, Map<String, ?> body, Object... variables) {
        return client.post()
                .uri(path, variables)
                .contentType(MediaType.APPLICATION_JSON)
                .body(body)
                .exchange();
    }

    private static Map<?, ?> runOf(RestTestClient.ResponseSpec response) {
        Map<String, Object> body = response.expectStatus()
                .isOk()
                .expectBody(new ParameterizedTypeReference<Map<String, Object>>() {})
                .returnResult()
                .getResponseBody();
        assertThat(body).isNotNull().containsKeys("run", "attempts", "events");
        return (Map<?, ?>) body.get("run");
    }

    private UUID finished(TriggerResult trigger, RunStatus status) {
        return finished(trigger.runId(), status);
    }

    private UUID finished(UUID runId, RunStatus status) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Run run = runlane.runs().get(runId).orElseThrow();
            return run.status().isTerminal();
        });
        assertThat(runlane.runs().get(runId).orElseThrow().status()).isEqualTo(status);
        return runId;
    }
}

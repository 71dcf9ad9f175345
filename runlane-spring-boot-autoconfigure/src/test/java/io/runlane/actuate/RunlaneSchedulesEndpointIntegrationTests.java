package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import java.time.Duration;
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
 * The {@code runlaneschedules} endpoint over HTTP with unrestricted access (S-SC-5): list and read schedules, create,
 * change, pause, resume, trigger and delete them, with 400 and 404 for refused requests.
 */
@SpringBootTest(
        classes = ActuatorTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=runlaneschedules",
            "management.endpoint.runlaneschedules.access=unrestricted"
        })
class RunlaneSchedulesEndpointIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_schedules");
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RunlaneTemplate runlane;

    private RestTestClient client;

    @BeforeEach
    void client() {
        client = RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + port + "/actuator/runlaneschedules")
                .build();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private RestTestClient.ResponseSpec post(String path, Map<String, ?> body, Object... variables) {
        return client.post()
                .uri(path, variables)
                .contentType(MediaType.APPLICATION_JSON)
                .body(body)
                .exchange();
    }

    @Test
    @DisplayName("S-SC-5: a schedule is created, read, listed, paused, resumed, triggered and deleted over HTTP")
    void fullLifecycle() {
        String id = unique("http");

        post(
                        "/{id}",
                        Map.of(
                                "taskId", "actuate.park",
                                "cron", "0 15 * * *",
                                "zone", "Europe/Berlin",
                                "payload", "{\"name\":\"scheduled\",\"key\":\"\"}",
                                "catchUp", "all"),
                        id)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.expression")
                .isEqualTo("0 15 * * *")
                .jsonPath("$.catchUp")
                .isEqualTo("ALL");
        client.get()
                .uri("/{id}", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.zone")
                .isEqualTo("Europe/Berlin");
        client.get()
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.schedules[?(@.id == '" + id + "')]")
                .exists();

        post("/{id}/pause", Map.of(), id)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.schedule.paused")
                .isEqualTo(true);
        assertThat(runlane.schedules().get(id).orElseThrow().paused()).isTrue();
        post("/{id}/resume", Map.of(), id).expectStatus().isOk();
        assertThat(runlane.schedules().get(id).orElseThrow().paused()).isFalse();

        String runId = post("/{id}/trigger", Map.of(), id)
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody()
                .get("runId")
                .toString();
        assertThat(runlane.runs().get(UUID.fromString(runId)).orElseThrow().taskId())
                .isEqualTo("actuate.park");

        client.delete()
                .uri("/{id}", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.deleted")
                .isEqualTo(true);
        assertThat(runlane.schedules().get(id)).isEmpty();
    }

    @Test
    @DisplayName("S-SC-5: invalid schedules answer 400 naming the field; unknown schedules 404; nothing is written")
    void refusedRequests() {
        String id = unique("bad");

        post("/{id}", Map.of("taskId", "actuate.park", "cron", "not cron"), id)
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("schedule_invalid")
                .jsonPath("$.message")
                .value(String.class, message -> assertThat(message).contains(id).contains("cron"));
        post("/{id}", Map.of("taskId", "actuate.park", "every", "soon"), id)
                .expectStatus()
                .isBadRequest();
        post("/{id}", Map.of("taskId", "actuate.park", "every", "1m", "payload", "{nope"), id)
                .expectStatus()
                .isBadRequest();
        post("/{id}", Map.of("taskId", "no.such.task", "every", "1m"), id)
                .expectStatus()
                .isBadRequest();
        assertThat(runlane.schedules().get(id)).isEmpty();

        post("/{id}/pause", Map.of(), id)
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("schedule_not_found");
        post("/{id}/trigger", Map.of(), id).expectStatus().isNotFound();
        client.get().uri("/{id}", id).exchange().expectStatus().isNotFound();

        runlane.schedules()
                .upsert(ScheduleDefinition.builder(id, "actuate.park")
                        .every(Duration.ofMinutes(5))
                        .payload(Payload.of("x"))
                        .build());
        post("/{id}/explode", Map.of(), id).expectStatus().isBadRequest();
        ScheduleInfo info = runlane.schedules().get(id).orElseThrow();
        assertThat(info.paused()).isFalse();
    }
}

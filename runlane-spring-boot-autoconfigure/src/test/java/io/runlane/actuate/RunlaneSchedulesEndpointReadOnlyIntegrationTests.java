package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleDefinition;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import java.time.Duration;
import java.util.Map;
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

/** S-SC-5: with the default (read-only) access the schedules can be read over HTTP but not changed. */
@SpringBootTest(
        classes = ActuatorTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=runlaneschedules")
class RunlaneSchedulesEndpointReadOnlyIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_schedules_ro");
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RunlaneTemplate runlane;

    @Test
    @DisplayName("S-SC-5: read-only access lists schedules and refuses pause, trigger, upsert and delete")
    void writesNeedUnrestrictedAccess() {
        runlane.schedules()
                .upsert(ScheduleDefinition.builder("ro", "actuate.park")
                        .every(Duration.ofMinutes(5))
                        .payload(Payload.of("x"))
                        .build());
        RestTestClient client = RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + port + "/actuator/runlaneschedules")
                .build();

        client.get().uri("/ro").exchange().expectStatus().isOk();
        client.post()
                .uri("/ro/pause")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of())
                .exchange()
                .expectStatus()
                .value(status -> assertThat(status).isGreaterThanOrEqualTo(400));
        client.post()
                .uri("/ro")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("taskId", "actuate.park", "every", "1m"))
                .exchange()
                .expectStatus()
                .value(status -> assertThat(status).isGreaterThanOrEqualTo(400));
        client.delete()
                .uri("/ro")
                .exchange()
                .expectStatus()
                .value(status -> assertThat(status).isGreaterThanOrEqualTo(400));

        assertThat(runlane.schedules().get("ro").orElseThrow().paused()).isFalse();
        assertThat(runlane.schedules().get("ro").orElseThrow().expression()).isEqualTo("every 5m");
    }
}

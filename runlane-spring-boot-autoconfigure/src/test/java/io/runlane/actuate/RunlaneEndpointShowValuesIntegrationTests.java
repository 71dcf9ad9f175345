package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint;
import io.runlane.autoconfigure.actuate.RunlaneEndpointWebExtension;
import java.security.Principal;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * {@code management.endpoint.runlane.show-values} (issue 15, item 13): payloads are masked unless allowed, {@code never}
 * by default, as Boot's Quartz endpoint does.
 */
@SpringBootTest(
        classes = ActuatorTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=runlane")
class RunlaneEndpointShowValuesIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_show_values");
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private RunlaneEndpoint endpoint;

    private RestTestClient client;

    @BeforeEach
    void client() {
        client = RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + port + "/actuator/runlane")
                .build();
    }

    @Test
    @DisplayName("Issue 15.13: by default, a run's payload is masked, by id and in lists")
    void payloadsAreMaskedByDefault() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("secret")).runId();

        client.get()
                .uri("/runs/{id}", runId)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.run.id")
                .isEqualTo(runId.toString())
                .jsonPath("$.run.payloadJson")
                .isEqualTo("******");
        client.get()
                .uri("/runs?task=actuate.park")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runs[0].payloadJson")
                .isEqualTo("******");
    }

    @Test
    @DisplayName("S-SG-5, issue 15.13: a run's signal payloads are masked like its own payload")
    void signalPayloadsAreMaskedByDefault() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("signalled")).runId();
        runlane.signals().send(runId, "nudge", java.util.Map.of("secret", "s3cr3t"));

        client.get()
                .uri("/runs/{id}", runId)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.signals[0].name")
                .isEqualTo("nudge")
                .jsonPath("$.signals[0].payloadJson")
                .isEqualTo("******");
    }

    @Test
    @DisplayName("Issue 15.13: when-authorized shows payloads to users in the configured roles only")
    void whenAuthorizedShowsPayloadsToUsersInTheRoles() {
        UUID runId = runlane.trigger("actuate.park", Payload.of("for-admins")).runId();
        RunlaneEndpointWebExtension extension =
                new RunlaneEndpointWebExtension(endpoint, Show.WHEN_AUTHORIZED, Set.of("ADMIN"));

        assertThat(payload(extension, user("ADMIN"), runId)).contains("for-admins");
        assertThat(payload(extension, user("VIEWER"), runId)).isEqualTo("\"******\"");
        assertThat(payload(extension, SecurityContext.NONE, runId)).isEqualTo("\"******\"");
        assertThat(payload(
                        new RunlaneEndpointWebExtension(endpoint, Show.ALWAYS, Set.of()), SecurityContext.NONE, runId))
                .contains("for-admins");
    }

    @Test
    @DisplayName("S-EX-35, S-MO-8: a failure's stored stack trace is masked by default and shown where values are")
    void failureStackTracesAreMaskedLikePayloads() {
        UUID runId = runlane.trigger("actuate.fail", Payload.of("stack-secret")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(runId).orElseThrow().status() == RunStatus.FAILED);

        client.get()
                .uri("/runs/{id}", runId)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.run.failure.message")
                .isEqualTo("refused stack-secret")
                .jsonPath("$.failureStack")
                .isEqualTo("******");
        RunlaneEndpointWebExtension shown = new RunlaneEndpointWebExtension(endpoint, Show.ALWAYS, Set.of());
        assertThat(shown.run(SecurityContext.NONE, "runs", runId.toString())
                        .getBody()
                        .failureStack())
                .startsWith("io.runlane.NonRetryableException: refused stack-secret\n")
                .contains("\tat " + ActuatorTestApplication.class.getName() + "$Fail.run(");
        UUID parked = runlane.trigger("actuate.park", Payload.of("no-failure")).runId();
        assertThat(shown.run(SecurityContext.NONE, "runs", parked.toString())
                        .getBody()
                        .failureStack())
                .as("a run without a failure has no stack trace")
                .isNull();
    }

    private static String payload(RunlaneEndpointWebExtension extension, SecurityContext context, UUID runId) {
        return extension.run(context, "runs", runId.toString()).getBody().run().payloadJson();
    }

    private static SecurityContext user(String role) {
        return new SecurityContext() {

            @Override
            public @Nullable Principal getPrincipal() {
                return () -> "someone";
            }

            @Override
            public boolean isUserInRole(String candidate) {
                return candidate.equals(role);
            }
        };
    }
}

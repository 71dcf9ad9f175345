package io.runlane.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.TriggerOutcome;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * Drives the sample over HTTP. It uses the sample's embedded PostgreSQL unless {@code RUNLANE_TEST_JDBC_URL} names
 * a server; customer ids are random, so repeated runs against one server do not see each other's runs. No worker
 * runs here: triggered runs stay active, which keeps the singleton conflict deterministic.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "runlane.worker.enabled=false")
@AutoConfigureRestTestClient
class RunlaneSampleApplicationIntegrationTests {

    @Autowired
    private RestTestClient client;

    @DynamicPropertySource
    static void postgresFromEnvironment(DynamicPropertyRegistry registry) {
        String jdbcUrl = System.getenv("RUNLANE_TEST_JDBC_URL");
        if (jdbcUrl != null && !jdbcUrl.isBlank()) {
            registry.add("spring.datasource.url", () -> jdbcUrl);
            registry.add("runlane.schema.name", () -> "sample_it");
        }
    }

    @Test
    void refreshingACustomerTwiceReturnsTheFirstRun() {
        String customerId = newId("customer");

        TriggerResponse first = refresh(customerId);
        TriggerResponse second = refresh(customerId);

        assertThat(first.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(second.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(second.runId()).isEqualTo(first.runId());
    }

    @Test
    void anotherCustomerGetsItsOwnRun() {
        TriggerResponse first = refresh(newId("customer"));
        TriggerResponse other = refresh(newId("customer"));

        assertThat(other.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(other.runId()).isNotEqualTo(first.runId());
    }

    @Test
    void confirmingAnOrderTwiceReturnsTheFirstRun() {
        String orderId = newId("order");

        TriggerResponse first = confirm(orderId);
        TriggerResponse second = confirm(orderId);

        assertThat(first.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(second.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(second.runId()).isEqualTo(first.runId());
    }

    @Test
    void aRefreshUnderAnotherKeyConflictsWithTheActiveRunOfThatCustomer() {
        String customerId = newId("customer");
        TriggerResponse owner = refresh(customerId);

        client.post()
                .uri("/customers/{customerId}/refresh", customerId)
                .header("Idempotency-Key", "request-2")
                .exchange()
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("singleton_conflict")
                .jsonPath("$.ownerRunId")
                .isEqualTo(owner.runId().toString());
    }

    @Test
    void anInvalidKeyIsABadRequestWithItsErrorCode() {
        client.post()
                .uri("/customers/{customerId}/refresh", newId("customer"))
                .header("Idempotency-Key", "has:colon")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("invalid_key");
    }

    @Test
    void aTriggeredRunCanBeReadBack() {
        TriggerResponse created = refresh(newId("customer"));

        client.get()
                .uri("/runs/{runId}", created.runId())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.id")
                .isEqualTo(created.runId().toString())
                .jsonPath("$.taskId")
                .isEqualTo("customers.refresh");
    }

    @Test
    void anUnknownRunIsNotFound() {
        client.get()
                .uri("/runs/{runId}", UUID.randomUUID())
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    private TriggerResponse refresh(String customerId) {
        return client.post()
                .uri("/customers/{customerId}/refresh", customerId)
                .exchange()
                .expectStatus()
                .isAccepted()
                .expectBody(TriggerResponse.class)
                .returnResult()
                .getResponseBody();
    }

    private TriggerResponse confirm(String orderId) {
        return client.post()
                .uri("/orders/{orderId}/confirm", orderId)
                .exchange()
                .expectStatus()
                .isAccepted()
                .expectBody(TriggerResponse.class)
                .returnResult()
                .getResponseBody();
    }

    private static String newId(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }
}

package io.runlane.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOutcome;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The sample with its worker running: triggered tasks really execute, and a succeeded owner keeps its key. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "runlane.worker.poll-interval=200ms")
@AutoConfigureRestTestClient
class SampleExecutionIntegrationTests {

    @Autowired
    private RestTestClient client;

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private PaymentProvider payments;

    @DynamicPropertySource
    static void postgresFromEnvironment(DynamicPropertyRegistry registry) {
        String jdbcUrl = System.getenv("RUNLANE_TEST_JDBC_URL");
        if (jdbcUrl != null && !jdbcUrl.isBlank()) {
            registry.add("spring.datasource.url", () -> jdbcUrl);
            registry.add("runlane.schema.name", () -> "sample_exec_it");
        }
    }

    @Test
    void confirmedOrderRunsAndItsKeyIsRetainedAfterwards() {
        String orderId = "order-" + UUID.randomUUID();
        TriggerResponse created = confirm(orderId);

        Run run = await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> runlane.runs().get(created.runId()).orElseThrow(),
                        r -> r.status().isTerminal());

        assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isOne();
        TriggerResponse again = confirm(orderId);
        assertThat(again.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(again.runId()).isEqualTo(created.runId());
    }

    @Test
    void checkoutChargesOnceAndReturnsItsReceiptAfterShippingFailedOnce() {
        String orderId = "order-" + UUID.randomUUID();
        int chargesBefore = payments.charges();
        TriggerResponse started = client.post()
                .uri("/orders/{orderId}/checkout?amountCents=4200", orderId)
                .exchange()
                .expectStatus()
                .isAccepted()
                .expectBody(TriggerResponse.class)
                .returnResult()
                .getResponseBody();

        CheckoutOrder.Receipt receipt = client.get()
                .uri("/checkouts/{runId}/receipt", started.runId())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(CheckoutOrder.Receipt.class)
                .returnResult()
                .getResponseBody();

        assertThat(receipt.orderId()).isEqualTo(orderId);
        assertThat(receipt.chargeId()).startsWith("ch_");
        assertThat(payments.charges() - chargesBefore)
                .as("charged once despite the retry")
                .isOne();
        Run run = runlane.runs().get(started.runId()).orElseThrow();
        assertThat(run.attempts()).isEqualTo(2);
        assertThat(runlane.runs().steps(started.runId()))
                .extracting(RunStep::name)
                .containsExactly("charge", "ship");
    }

    private TriggerResponse confirm(String orderId) {
        return client.post()
                .uri("/orders/{orderId}/confirm", orderId)
                .exchange()
                .expectStatus()
                .is2xxSuccessful()
                .expectBody(TriggerResponse.class)
                .returnResult()
                .getResponseBody();
    }
}

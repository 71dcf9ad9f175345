package io.runlane.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.Run;
import io.runlane.RunStatus;
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

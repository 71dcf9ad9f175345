package io.runlane.sample;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The sample serves the Runlane console, read-only (S-CO-1, S-CO-2). */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
class SampleConsoleIntegrationTests {

    @Autowired
    private RestTestClient client;

    @DynamicPropertySource
    static void postgresFromEnvironment(DynamicPropertyRegistry registry) {
        String jdbcUrl = System.getenv("RUNLANE_TEST_JDBC_URL");
        if (jdbcUrl != null && !jdbcUrl.isBlank()) {
            registry.add("spring.datasource.url", () -> jdbcUrl);
            registry.add("runlane.schema.name", () -> "sample_console_it");
        }
    }

    @Test
    void theConsoleIsServedReadOnly() {
        client.get()
                .uri("/runlane/")
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .contentTypeCompatibleWith(MediaType.TEXT_HTML);
        client.get()
                .uri("/runlane/api/overview")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.access")
                .isEqualTo("read-only")
                .jsonPath("$.environment")
                .isEqualTo("sample");
        client.post()
                .uri("/runlane/api/idempotency-keys/reset")
                .header("X-Runlane-Console", "1")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"taskId\":\"orders.confirm\",\"key\":\"k\"}")
                .exchange()
                .expectStatus()
                .isForbidden();
    }
}

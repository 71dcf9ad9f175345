package io.runlane.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.autoconfigure.RunDrainer;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * How to test a task: trigger it, let {@link RunDrainer} run what is due, then assert the outcome. No sleeping and no
 * polling in the test: {@code drain} returns once nothing is due or running.
 */
@SpringBootTest
class ConfirmOrderTaskTests {

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private RunDrainer drainer;

    @DynamicPropertySource
    static void postgresFromEnvironment(DynamicPropertyRegistry registry) {
        String jdbcUrl = System.getenv("RUNLANE_TEST_JDBC_URL");
        if (jdbcUrl != null && !jdbcUrl.isBlank()) {
            registry.add("spring.datasource.url", () -> jdbcUrl);
            registry.add("runlane.schema.name", () -> "sample_task_tests");
        }
    }

    @Test
    void confirmingAnOrderSucceedsOnce() {
        UUID runId = runlane.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("order-" + UUID.randomUUID()))
                .runId();

        drainer.drain(Duration.ofSeconds(30));

        Run run = runlane.runs().get(runId).orElseThrow();
        assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(run.attempts()).isOne();
    }
}

package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunlaneTemplate;
import io.runlane.actuate.ActuatorTestApplication.Payload;
import io.runlane.autoconfigure.actuate.RunlaneHealthIndicator;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.SmartLifecycle;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * S-MO-2: the {@code runlane} health indicator over HTTP: {@code UP} with the backlog while everything runs, {@code DOWN}
 * (503) while the worker or a maintenance job of the running application has stopped.
 */
@SpringBootTest(
        classes = ActuatorTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=runlane,health",
            "management.endpoint.health.show-details=always"
        })
class RunlaneHealthIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ActuatorTestApplication.properties(registry, "actuate_health");
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private RunlaneEngine engine;

    @Autowired
    private RunWorker worker;

    @Autowired
    private MaintenanceService recovery;

    @Autowired
    private PruningService pruning;

    private RestTestClient client;

    @BeforeEach
    void client() {
        client = RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + port + "/actuator/health/runlane")
                .build();
    }

    @Test
    void healthIsUpWithTheBacklogAndTheWorker() {
        runlane.trigger("actuate.park", Payload.of("backlog"));

        client.get()
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("UP")
                .jsonPath("$.details.backlog.waiting")
                .value(Integer.class, waiting -> assertThat(waiting).isPositive())
                .jsonPath("$.details.backlog.due")
                .value(Integer.class, due -> assertThat(due).isPositive())
                .jsonPath("$.details.oldestDueAge")
                .value(
                        String.class,
                        age -> assertThat(Duration.parse(age).isNegative()).isFalse())
                .jsonPath("$.details.worker.id")
                .isEqualTo(worker.workerId())
                .jsonPath("$.details.worker.inFlight")
                .isNumber()
                .jsonPath("$.details.problems")
                .doesNotExist();
    }

    @Test
    void healthIsDownWhileTheWorkerIsStopped() {
        assertDownWhileStopped(worker, "the worker has stopped");
    }

    @Test
    void healthIsDownWhileLeaseRecoveryIsStopped() {
        assertDownWhileStopped(recovery, "lease recovery has stopped");
    }

    @Test
    void healthIsDownWhilePruningIsStopped() {
        assertDownWhileStopped(pruning, "automatic pruning has stopped");
    }

    @Test
    void healthIsDownWhenTheWorkerHasNotPolledForTooLong() {
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.lastPoll() != null);
        List<String> queues = List.copyOf(engine.settings().queues());

        // a negative age puts the limit in the future, so the last poll is always older than it
        Health stuck = new RunlaneHealthIndicator(
                        engine.statistics(), queues, worker, recovery, pruning, Duration.ofSeconds(-1), () -> true)
                .health();
        Health polling = new RunlaneHealthIndicator(
                        engine.statistics(), queues, worker, recovery, pruning, Duration.ofMinutes(1), () -> true)
                .health();

        assertThat(stuck.getStatus()).isEqualTo(Status.DOWN);
        assertThat(stuck.getDetails().get("problems").toString()).contains("the worker has not polled since");
        assertThat(polling.getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void runlaneIsPartOfTheApplicationsHealth() {
        RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + port + "/actuator/health")
                .build()
                .get()
                .exchange()
                .expectBody()
                .jsonPath("$.components.runlane.status")
                .isEqualTo("UP");
    }

    private void assertDownWhileStopped(SmartLifecycle job, String problem) {
        job.stop();
        try {
            client.get()
                    .exchange()
                    .expectStatus()
                    .isEqualTo(503)
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("DOWN")
                    .jsonPath("$.details.problems")
                    .isEqualTo(List.of(problem));
        } finally {
            job.start();
        }
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> client.get().exchange().expectStatus().isOk());
    }
}

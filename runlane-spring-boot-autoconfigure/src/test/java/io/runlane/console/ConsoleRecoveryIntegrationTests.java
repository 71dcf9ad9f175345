package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The console's recovery endpoints with {@code runlane.console.access=unrestricted} (S-RV-5): fork from a step (S-RV-3)
 * and bulk resume and cancel of a filter (S-RV-4), under the console's write rules (S-CO-5).
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        properties = {
            "runlane.console.enabled=true",
            "runlane.console.show-values=always",
            "runlane.console.access=unrestricted"
        })
class ConsoleRecoveryIntegrationTests {

    private static final String API = "/runlane/api";

    private static final String SCRIPT = "<script>alert(1)</script>";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_recovery");
    }

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RunlaneTemplate runlane;

    private MockMvc mvc;

    @BeforeEach
    void mvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context).build();
    }

    @Test
    @DisplayName("S-RV-5: a fork from a step whose name is markup copies the steps before it and answers the new run,"
            + " the name kept as it was")
    void aForkFromAStepCopiesTheStepsBeforeIt() throws Exception {
        Payload payload = Payload.of(SCRIPT);
        UUID source = failedCheckout(payload);
        mvc.perform(get(API + "/runs/{id}", source))
                .andExpect(jsonPath("$.actions.fork").value(true))
                .andExpect(jsonPath("$.steps.items[1].name").value(ConsoleTestApplication.chargeStep(payload)));

        String body = action("/runs/{id}/fork", "{\"fromStep\":\"reserve\"}", source)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.sourceType").value("FORK"))
                .andExpect(jsonPath("$.run.sourceRunId").value(source.toString()))
                .andReturn()
                .getResponse()
                .getContentAsString();

        UUID fork = UUID.fromString(JsonPath.read(body, "$.run.id"));
        awaitStatus(fork, RunStatus.FAILED);
        List<RunStep> sourceSteps = runlane.runs().steps(source);
        List<RunStep> forkSteps = runlane.runs().steps(fork);
        assertThat(forkSteps)
                .extracting(RunStep::name)
                .containsExactly(ConsoleTestApplication.chargeStep(payload), "reserve");
        assertThat(forkSteps.get(0).completedAt()).isEqualTo(sourceSteps.get(0).completedAt());
        assertThat(forkSteps.get(1).completedAt()).isAfter(sourceSteps.get(1).completedAt());

        String markupFork = action(
                        "/runs/{id}/fork",
                        "{\"fromStep\":\"" + ConsoleTestApplication.chargeStep(payload) + "\"}",
                        source)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.sourceRunId").value(source.toString()))
                .andReturn()
                .getResponse()
                .getContentAsString();
        UUID fromFirst = UUID.fromString(JsonPath.read(markupFork, "$.run.id"));
        awaitStatus(fromFirst, RunStatus.FAILED);
        assertThat(runlane.runs().steps(fromFirst).get(0).completedAt())
                .isAfter(sourceSteps.get(1).completedAt());
    }

    @Test
    @DisplayName("S-RV-5: a fork with no step replays every recorded step")
    void aForkAfterAllStepsCopiesEveryStep() throws Exception {
        UUID source = failedCheckout(Payload.of("after all"));

        String body = action("/runs/{id}/fork", "{\"fromStep\":null}", source)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.sourceType").value("FORK"))
                .andExpect(jsonPath("$.steps.total").value(2))
                .andReturn()
                .getResponse()
                .getContentAsString();

        UUID fork = UUID.fromString(JsonPath.read(body, "$.run.id"));
        awaitStatus(fork, RunStatus.FAILED);
        assertThat(runlane.runs().steps(fork))
                .extracting(RunStep::completedAt)
                .containsExactlyElementsOf(runlane.runs().steps(source).stream()
                        .map(RunStep::completedAt)
                        .toList());
    }

    @Test
    @DisplayName("S-RV-5: a fork from an unknown step answers 404 step_not_found, of an active run 409, of a blank step"
            + " 400; none creates a run")
    void refusedForksAnswerWithTheirCodeAndCreateNothing() throws Exception {
        UUID source = failedCheckout(Payload.of("refused fork"));
        UUID parked = runlane.trigger("reports.build", Payload.of("active")).runId();
        long before = checkoutRuns();

        action("/runs/{id}/fork", "{\"fromStep\":\"ship\"}", source)
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("step_not_found"))
                .andExpect(jsonPath("$.message", containsString("ship")));
        action("/runs/{id}/fork", "{\"fromStep\":null}", parked)
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.code").value("run_state_invalid"));
        action("/runs/{id}/fork", "{\"fromStep\":\" \"}", source)
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));
        action("/runs/{id}/fork", "[1]", source).andExpect(status().isBadRequest());
        action("/runs/{id}/fork", "{}", UUID.randomUUID())
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("run_not_found"));
        mvc.perform(post(API + "/runs/{id}/fork", source)
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_header_missing"));

        assertThat(checkoutRuns()).isEqualTo(before);
        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-RV-5: resume-all resumes the filter's failed and cancelled runs and names the skipped ones with"
            + " their reason")
    void resumeAllResumesTheFilteredRunsAndReportsTheSkipped() throws Exception {
        Run first = runlane.trigger("reports.build", Payload.of("bulk 1")).run();
        UUID second = runlane.trigger("reports.build", Payload.of("bulk 2")).runId();
        UUID queued =
                runlane.trigger("reports.build", Payload.of("bulk queued")).runId();
        TriggerOptions released = TriggerOptions.builder()
                .idempotencyKeyTtl(IdempotencyKeyTtl.active())
                .build();
        UUID keyed = runlane.trigger("reports.build", new Payload("bulk", "bulk-key"), released)
                .runId();
        for (UUID id : List.of(first.id(), second, keyed)) {
            runlane.runs().cancel(id, "bulk test");
        }
        UUID owner = runlane.trigger("reports.build", new Payload("bulk", "bulk-key"), released)
                .runId();

        action("/runs/resume-all", bulk("\"taskIds\":[\"reports.build\"]", first.createdAt(), 1000))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.matched").value(3))
                .andExpect(jsonPath("$.acted").value(2))
                .andExpect(jsonPath("$.skipped['" + keyed + "']").value("idempotency_key_active"));

        assertThat(List.of(first.id(), second, queued, owner))
                .allSatisfy(id -> assertThat(statusOf(id)).isEqualTo(RunStatus.QUEUED));
        assertThat(statusOf(keyed)).isEqualTo(RunStatus.CANCELLED);
    }

    @Test
    @DisplayName("S-RV-5: cancel-all cancels the filter's active runs, at most maxRuns, newest first")
    void cancelAllCancelsTheFilteredRunsUpToMaxRuns() throws Exception {
        Run oldest =
                runlane.trigger("reports.build", Payload.of("cancel-all 1")).run();
        UUID middle =
                runlane.trigger("reports.build", Payload.of("cancel-all 2")).runId();
        UUID newest =
                runlane.trigger("reports.build", Payload.of("cancel-all 3")).runId();

        action("/runs/cancel-all", bulk("\"statuses\":[\"QUEUED\"],\"queues\":[\"reports\"]", oldest.createdAt(), 2))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.matched").value(2))
                .andExpect(jsonPath("$.acted").value(2));

        assertThat(statusOf(newest)).isEqualTo(RunStatus.CANCELLED);
        assertThat(statusOf(middle)).isEqualTo(RunStatus.CANCELLED);
        assertThat(statusOf(oldest.id())).isEqualTo(RunStatus.QUEUED);
        List<io.runlane.RunEvent> events = runlane.runs().events(newest);
        assertThat(events.get(events.size() - 1).detail()).contains("cancelled in bulk");
        runlane.runs().cancel(oldest.id(), "cleanup");
    }

    @Test
    @DisplayName("S-RV-5: a bulk request with statuses the action does not apply to, an unknown status, a malformed"
            + " instant or maxRuns out of range answers 400 and changes nothing")
    void invalidBulkRequestsAreRefused() throws Exception {
        UUID parked =
                runlane.trigger("reports.build", Payload.of("bulk invalid")).runId();

        action("/runs/cancel-all", "{\"statuses\":[\"SUCCEEDED\"]}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("configuration_invalid"));
        action("/runs/resume-all", "{\"statuses\":[\"QUEUED\"]}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("configuration_invalid"));
        action("/runs/cancel-all", "{\"statuses\":[\"" + SCRIPT + "\"]}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"))
                .andExpect(jsonPath("$.message", containsString(SCRIPT)));
        action("/runs/cancel-all", "{\"createdFrom\":\"yesterday\"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.message", containsString("createdFrom")));
        action("/runs/cancel-all", "{\"maxRuns\":0}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("configuration_invalid"));
        action("/runs/cancel-all", "{\"maxRuns\":10001}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("configuration_invalid"));
        action("/runs/cancel-all", "{\"maxRuns\":\"many\"}").andExpect(status().isBadRequest());
        mvc.perform(post(API + "/runs/cancel-all")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_header_missing"));
        mvc.perform(post(API + "/runs/cancel-all")
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.TEXT_PLAIN)
                        .content("{}"))
                .andExpect(status().isUnsupportedMediaType());

        assertThat(statusOf(parked)).isEqualTo(RunStatus.QUEUED);
        runlane.runs().cancel(parked, "cleanup");
    }

    @Test
    @DisplayName("S-CO-27, S-OP-15: cancel-all acts on the runs of a key prefix and a priority range only; a blank"
            + " prefix or a bound that is not a number answers 400 and cancels nothing")
    void cancelAllByKeyPrefixAndPriority() throws Exception {
        TriggerOptions urgent = TriggerOptions.builder().priority(50).build();
        UUID first = runlane.trigger("reports.build", new Payload("prefix 1", "bulk-prefix-1"), urgent)
                .runId();
        UUID second = runlane.trigger("reports.build", new Payload("prefix 2", "bulk-prefix-2"))
                .runId();
        UUID other = runlane.trigger("reports.build", new Payload("prefix 3", "bulk-other-1"), urgent)
                .runId();

        for (String bad : List.of(
                "{\"idempotencyKeyPrefix\":\"  \"}",
                "{\"singletonKeyPrefix\":\" \"}",
                "{\"failureMessagePrefix\":\" \"}",
                "{\"minPriority\":\"urgent\"}",
                "{\"maxPriority\":101}")) {
            action("/runs/cancel-all", bad).andExpect(status().isBadRequest());
        }
        assertThat(List.of(first, second, other))
                .allSatisfy(id -> assertThat(statusOf(id)).isEqualTo(RunStatus.QUEUED));

        action("/runs/cancel-all", "{\"idempotencyKeyPrefix\":\"bulk-prefix-\",\"minPriority\":\"1\"}")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.acted").value(1));

        assertThat(statusOf(first)).isEqualTo(RunStatus.CANCELLED);
        assertThat(statusOf(second)).isEqualTo(RunStatus.QUEUED);
        assertThat(statusOf(other)).isEqualTo(RunStatus.QUEUED);
        runlane.runs().cancel(second, "cleanup");
        runlane.runs().cancel(other, "cleanup");
    }

    private static String bulk(String filters, Instant createdFrom, int maxRuns) {
        return "{" + filters + ",\"createdFrom\":\"" + createdFrom + "\",\"maxRuns\":" + maxRuns + "}";
    }

    private UUID failedCheckout(Payload payload) {
        UUID source = runlane.trigger("checkout.place", payload).runId();
        awaitStatus(source, RunStatus.FAILED);
        return source;
    }

    private long checkoutRuns() {
        return runlane.runs()
                .list(RunQuery.builder()
                        .taskIds("checkout.place")
                        .limit(RunQuery.MAX_LIMIT)
                        .build())
                .items()
                .size();
    }

    private RunStatus statusOf(UUID runId) {
        return runlane.runs().get(runId).orElseThrow().status();
    }

    private void awaitStatus(UUID runId, RunStatus status) {
        await().atMost(Duration.ofSeconds(20)).until(() -> statusOf(runId) == status);
    }

    private ResultActions action(String path, String body, Object... variables) throws Exception {
        return mvc.perform(post(API + path, variables)
                .header("X-Runlane-Console", "1")
                .contentType(MediaType.APPLICATION_JSON)
                .content(body));
    }
}

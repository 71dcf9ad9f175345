package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
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
 * The console's actions with {@code runlane.console.access=unrestricted} (S-CO-2, S-RV-5): cancel, retry, rerun, resume and key
 * reset through the operator API, each only with the console's header and a JSON body.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        properties = {"runlane.console.enabled=true", "runlane.console.access=unrestricted"})
class ConsoleActionsIntegrationTests {

    private static final String API = "/runlane/api";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_actions");
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
    void cancelEndsAWaitingRunWithTheGivenReason() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("cancel")).runId();
        mvc.perform(get(API + "/runs/{id}", parked))
                .andExpect(jsonPath("$.actions.cancel").value(true));

        action("/runs/{id}/cancel", "{\"reason\":\"duplicate order\"}", parked)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.status").value("CANCELLED"))
                .andExpect(jsonPath("$.events.items[0].detail", containsString("duplicate order")));

        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }

    @Test
    @DisplayName("S-CO-2: an action without the console's header is refused (a cross-site form cannot send it)")
    void anActionWithoutTheConsoleHeaderIsRefused() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("no header")).runId();

        mvc.perform(post(API + "/runs/{id}/cancel", parked)
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_header_missing"));
        mvc.perform(post(API + "/runs/{id}/cancel", parked)
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_FORM_URLENCODED)
                        .content("reason=x"))
                .andExpect(status().isUnsupportedMediaType());

        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    void retryAndRerunCreateNewRunsFromAFailedOne() throws Exception {
        UUID failed = runlane.trigger("invoices.send", Payload.of("retry")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);
        mvc.perform(get(API + "/runs/{id}", failed))
                .andExpect(jsonPath("$.actions.retry").value(true))
                .andExpect(jsonPath("$.actions.rerun").value(true))
                .andExpect(jsonPath("$.actions.cancel").value(false));

        action("/runs/{id}/retry", "{}", failed)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.sourceRunId").value(failed.toString()))
                .andExpect(jsonPath("$.run.sourceType").value("RETRY"));
        action("/runs/{id}/rerun", "{}", failed)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.sourceType").value("RERUN"));
    }

    @Test
    @DisplayName("S-RV-5: a cancelled run is resumed in place from the console; a resume that would take a key another"
            + " run owns, or of an active run, answers 409 with its code")
    void resumeQueuesACancelledRunAgainInPlace() throws Exception {
        UUID cancelled = runlane.trigger("reports.build", Payload.of("resume")).runId();
        mvc.perform(get(API + "/runs/{id}", cancelled))
                .andExpect(jsonPath("$.actions.resume").value(false));
        runlane.runs().cancel(cancelled, "later");
        mvc.perform(get(API + "/runs/{id}", cancelled))
                .andExpect(jsonPath("$.actions.resume").value(true));

        action("/runs/{id}/resume", "{}", cancelled)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.id").value(cancelled.toString()))
                .andExpect(jsonPath("$.run.status").value("QUEUED"))
                .andExpect(jsonPath("$.events.items[0].type").value("RESUMED"))
                .andExpect(jsonPath("$.actions.resume").value(false));
        action("/runs/{id}/resume", "{}", cancelled)
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.code").value("run_state_invalid"));

        // The key is released when its owner ends, so that a new run can take it.
        TriggerOptions released = TriggerOptions.builder()
                .idempotencyKeyTtl(IdempotencyKeyTtl.active())
                .build();
        UUID keyed = runlane.trigger("reports.build", new Payload("resume", "report-resume"), released)
                .runId();
        runlane.runs().cancel(keyed, "replaced");
        UUID owner = runlane.trigger("reports.build", new Payload("resume", "report-resume"), released)
                .runId();
        assertThat(owner).isNotEqualTo(keyed);
        action("/runs/{id}/resume", "{}", keyed)
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.code").value("idempotency_key_active"))
                .andExpect(jsonPath("$.message", containsString(owner.toString())));
        assertThat(runlane.runs().get(keyed).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }

    @Test
    @DisplayName("S-RV-5: resume needs the console's header like every action")
    void resumeWithoutTheConsoleHeaderIsRefused() throws Exception {
        UUID cancelled =
                runlane.trigger("reports.build", Payload.of("resume no header")).runId();
        runlane.runs().cancel(cancelled, "later");

        mvc.perform(post(API + "/runs/{id}/resume", cancelled)
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_header_missing"));

        assertThat(runlane.runs().get(cancelled).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }

    @Test
    void refusedActionsAnswerWithTheirCode() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("refused")).runId();

        action("/runs/{id}/retry", "{}", parked)
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.code").exists());
        action("/runs/{id}/cancel", "{}", UUID.randomUUID())
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("run_not_found"));
        action("/runs/{id}/explode", "{}", parked).andExpect(status().isBadRequest());
    }

    @Test
    void resetForgetsAFinishedOwnerOfAKey() throws Exception {
        Run first = runlane.trigger("orders.confirm", new Payload("reset", "invoice-7"))
                .run();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(first.id()).orElseThrow().status() == RunStatus.SUCCEEDED);
        mvc.perform(get(API + "/runs/{id}", first.id()))
                .andExpect(jsonPath("$.actions.resetKey").value(true));

        action("/idempotency-keys/reset", "{\"taskId\":\"orders.confirm\",\"key\":\"invoice-7\"}")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.reset").value(true));

        assertThat(runlane.trigger("orders.confirm", new Payload("reset", "invoice-7"))
                        .created())
                .isTrue();
    }

    @Test
    void aScheduleIsPausedResumedAndTriggeredNow() throws Exception {
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport("nightly-report"));

        action("/schedules/nightly-report/pause", "{}")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.schedule.paused").value(true))
                .andExpect(jsonPath("$.schedule.actions.resume").value(true));
        assertThat(runlane.schedules().get("nightly-report").orElseThrow().paused())
                .isTrue();
        action("/schedules/nightly-report/resume", "{}")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.schedule.paused").value(false));
        String body = action("/schedules/nightly-report/trigger", "{}")
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();

        UUID runId = UUID.fromString(com.jayway.jsonpath.JsonPath.read(body, "$.runId"));
        assertThat(runlane.runs().get(runId).orElseThrow().taskId()).isEqualTo("reports.build");
        action("/schedules/no-such-schedule/pause", "{}")
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("schedule_not_found"));
    }

    private ResultActions action(String path, String body, Object... variables) throws Exception {
        return mvc.perform(post(API + path, variables)
                .header("X-Runlane-Console", "1")
                .contentType(MediaType.APPLICATION_JSON)
                .content(body));
    }
}

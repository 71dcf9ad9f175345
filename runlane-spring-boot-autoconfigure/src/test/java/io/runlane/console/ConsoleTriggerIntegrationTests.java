package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * Triggering a task from the console (S-CO-25): {@code POST api/tasks/{id}/trigger} reads the payload typed in the
 * page as the task's payload type and triggers it like any payload, with an optional idempotency key and delay; text
 * that is not JSON, a field that does not map, a violated constraint, a bad delay and an undeclared task are refused
 * with 400 or 404 naming what is wrong, and write nothing. Writes are guarded like every console action (S-CO-5).
 */
@DirtiesContext
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleTriggerIntegrationTests.Tasks.class},
        properties = {
            "runlane.console.enabled=true",
            "runlane.console.access=unrestricted",
            "runlane.console.show-values=always"
        })
class ConsoleTriggerIntegrationTests {

    private static final String API = "/runlane/api";

    /** A parcel to ship: an address and a weight, both constrained. */
    public record Parcel(@NotBlank String address, @Positive int weight) {}

    /** Ships parcels on the {@code reports} queue, which no worker of the tests consumes, so its runs stay put. */
    @Task(id = "parcels.ship", queue = "reports")
    static class Ship implements TaskHandler<Parcel> {

        @Override
        public void run(Parcel parcel, RunContext context) {}
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Ship.class)
    static class Tasks {}

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_trigger");
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
    @DisplayName("S-CO-25: a trigger from the console creates a run of the task with the typed payload and answers it")
    void aTriggerCreatesARunWithThePayload() throws Exception {
        String answer = trigger(
                        "parcels.ship",
                        "{\"payloadText\": \"{\\\"address\\\": \\\"1 Quay St\\\", \\\"weight\\\": 3}\"}")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.outcome").value("CREATED"))
                .andExpect(jsonPath("$.run.taskId").value("parcels.ship"))
                .andExpect(jsonPath("$.run.status").value("QUEUED"))
                .andExpect(jsonPath("$.run.payloadJson.address").value("1 Quay St"))
                .andReturn()
                .getResponse()
                .getContentAsString();

        Run run = runlane.runs()
                .get(UUID.fromString(JsonPath.read(answer, "$.run.id")))
                .orElseThrow();
        assertThat(run.payloadJson()).contains("\"weight\": 3");
        assertThat(run.idempotencyKey()).isNull();
    }

    @Test
    @DisplayName("S-CO-25: an idempotency key and a delay apply; the same key again returns the run it owns")
    void anIdempotencyKeyAndADelayApply() throws Exception {
        String body = "{\"payloadText\": \"{\\\"address\\\": \\\"2 Dock Rd\\\", \\\"weight\\\": 1}\","
                + " \"idempotencyKey\": \"parcel-2\", \"delay\": \"10m\"}";
        Instant before = Instant.now();
        String answer = trigger("parcels.ship", body)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.outcome").value("CREATED"))
                .andExpect(jsonPath("$.run.status").value("SCHEDULED"))
                .andExpect(jsonPath("$.run.idempotencyKey").value("parcel-2"))
                .andReturn()
                .getResponse()
                .getContentAsString();
        Run run = runlane.runs()
                .get(UUID.fromString(JsonPath.read(answer, "$.run.id")))
                .orElseThrow();
        assertThat(run.runAt()).isAfter(before.plus(Duration.ofMinutes(9)));

        trigger("parcels.ship", body)
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.outcome").value("RETURNED_EXISTING"))
                .andExpect(jsonPath("$.run.id").value(run.id().toString()));
    }

    @Test
    @DisplayName("S-CO-25: text that is not JSON, a field of the wrong type, a violated constraint, a blank or null"
            + " payload and a bad delay answer 400 naming the field, and nothing is written")
    void badPayloadsAnswer400NamingTheFieldAndWriteNothing() throws Exception {
        long runs = parcels();

        trigger("parcels.ship", "{\"payloadText\": \"{\\\"address\\\": \"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("payload_invalid"))
                .andExpect(
                        jsonPath("$.message", org.hamcrest.Matchers.containsString("payload: is not JSON at line 1")));
        trigger("parcels.ship", "{\"payloadText\": \"{} {}\"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("payload_invalid"));
        trigger("parcels.ship", "{\"payloadText\": \"{\\\"address\\\": \\\"x\\\", \\\"weight\\\": \\\"heavy\\\"}\"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("payload_invalid"))
                .andExpect(jsonPath("$.message", org.hamcrest.Matchers.containsString("payload.weight: ")));
        trigger("parcels.ship", "{\"payloadText\": \"{\\\"address\\\": \\\" \\\", \\\"weight\\\": 0}\"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("payload_invalid"))
                .andExpect(jsonPath("$.message", org.hamcrest.Matchers.containsString("address: ")))
                .andExpect(jsonPath("$.message", org.hamcrest.Matchers.containsString("weight: ")));
        trigger("parcels.ship", "{\"payloadText\": \"  \"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.message", org.hamcrest.Matchers.containsString("payload: must not be blank")));
        trigger("parcels.ship", "{\"payloadText\": \"null\"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.message", org.hamcrest.Matchers.containsString("payload: must not be null")));
        trigger(
                        "parcels.ship",
                        "{\"payloadText\": \"{\\\"address\\\": \\\"x\\\", \\\"weight\\\": 1}\", \"delay\": \"soon\"}")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("configuration_invalid"))
                .andExpect(jsonPath("$.message", org.hamcrest.Matchers.containsString("delay")));
        trigger("parcels.ship", "[1, 2]")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));

        assertThat(parcels()).isEqualTo(runs);
    }

    @Test
    @DisplayName("S-CO-25, S-CO-5: an undeclared task answers 404; a trigger without the console's header 403; and"
            + " neither writes")
    void anUndeclaredTaskAnswers404AndTheGuardApplies() throws Exception {
        long runs = parcels();

        trigger("parcels.unknown", "{\"payloadText\": \"{}\"}")
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("task_not_found"));
        mvc.perform(post(API + "/tasks/{id}/trigger", "parcels.ship")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"payloadText\": \"{\\\"address\\\": \\\"x\\\", \\\"weight\\\": 1}\"}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_header_missing"));

        assertThat(parcels()).isEqualTo(runs);
    }

    private ResultActions trigger(String taskId, String body) throws Exception {
        return mvc.perform(post(API + "/tasks/{id}/trigger", taskId)
                .header("X-Runlane-Console", "1")
                .contentType(MediaType.APPLICATION_JSON)
                .content(body));
    }

    private long parcels() {
        return runlane.runs()
                .list(RunQuery.builder()
                        .taskIds("parcels.ship")
                        .statuses(RunStatus.values())
                        .limit(200)
                        .build())
                .items()
                .size();
    }
}

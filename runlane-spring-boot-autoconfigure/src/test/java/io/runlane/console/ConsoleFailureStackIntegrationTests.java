package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The run detail of the console's API carries the stack trace stored with the run's failure (S-EX-35) where values
 * are shown, and {@code "******"} where they are not (S-CO-13).
 */
class ConsoleFailureStackIntegrationTests {

    private static final String API = "/runlane/api";

    /** {@code show-values=always}: the stack trace is shown. */
    @Nested
    @DirtiesContext
    @SpringBootTest(
            classes = ConsoleTestApplication.class,
            properties = {"runlane.console.enabled=true", "runlane.console.show-values=always"})
    class Shown {

        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            ConsoleTestApplication.properties(registry, "console_stack_shown");
        }

        @Autowired
        private WebApplicationContext context;

        @Autowired
        private RunlaneTemplate runlane;

        @Test
        @DisplayName("S-EX-35, S-CO-13: where values are shown, the run detail carries the failure's stack trace")
        void runDetailCarriesTheStackTrace() throws Exception {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            UUID failed = awaitFailed(runlane, "shown-name");
            UUID succeeded =
                    runlane.trigger("orders.confirm", Payload.of("fine")).runId();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.runs().get(succeeded).orElseThrow().status() == RunStatus.SUCCEEDED);

            String detail = body(mvc, API + "/runs/" + failed);
            assertThat((String) JsonPath.read(detail, "$.failureStack"))
                    .startsWith("io.runlane.NonRetryableException: refused shown-name\n")
                    .contains("\tat " + ConsoleTestApplication.class.getName() + "$Fail.run(");
            assertThat((Object) JsonPath.read(body(mvc, API + "/runs/" + succeeded), "$.failureStack"))
                    .as("a run without a failure has none")
                    .isNull();
        }
    }

    /** No show-values property: the actuator's default, never. */
    @Nested
    @DirtiesContext
    @SpringBootTest(classes = ConsoleTestApplication.class, properties = "runlane.console.enabled=true")
    class Hidden {

        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            ConsoleTestApplication.properties(registry, "console_stack_hidden");
        }

        @Autowired
        private WebApplicationContext context;

        @Autowired
        private RunlaneTemplate runlane;

        @Test
        @DisplayName("S-EX-35, S-CO-13: where values are masked, the stack trace is \"******\"; the failure is shown")
        void runDetailMasksTheStackTrace() throws Exception {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            UUID failed = awaitFailed(runlane, "hidden-name");

            String detail = body(mvc, API + "/runs/" + failed);
            assertThat((String) JsonPath.read(detail, "$.failureStack")).isEqualTo("******");
            assertThat((String) JsonPath.read(detail, "$.run.failure.message")).isEqualTo("refused hidden-name");
            assertThat(detail).doesNotContain("$Fail.run(");
        }
    }

    private static UUID awaitFailed(RunlaneTemplate runlane, String name) {
        UUID runId = runlane.trigger("invoices.send", Payload.of(name)).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(runId).orElseThrow().status() == RunStatus.FAILED);
        return runId;
    }

    private static String body(MockMvc mvc, String path) throws Exception {
        return mvc.perform(get(path))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }
}

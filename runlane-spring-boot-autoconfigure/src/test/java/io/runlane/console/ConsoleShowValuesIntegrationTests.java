package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The console masks the values runs carry as the actuator does (S-CO-13): by default (the actuator's default, never),
 * and under {@code when-authorized} for anonymous users and users without one of the roles; ids, keys, failures and
 * wait deadlines stay shown.
 */
class ConsoleShowValuesIntegrationTests {

    private static final String API = "/runlane/api";

    private static final String MASK = "******";

    /** No show-values property at all: the actuator's default, never. */
    @Nested
    @DirtiesContext
    @SpringBootTest(
            classes = {ConsoleTestApplication.class, ConsoleWaitsIntegrationTests.Tasks.class},
            properties = "runlane.console.enabled=true")
    class ByDefault {

        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            ConsoleTestApplication.properties(registry, "console_values_default");
        }

        @Autowired
        private WebApplicationContext context;

        @Autowired
        private RunlaneTemplate runlane;

        @Test
        @DisplayName("S-CO-13: by default the payload, result, step results, wait outcomes and signal payloads are"
                + " masked; keys, the failure and wait deadlines are shown")
        void valuesAreMaskedByDefault() throws Exception {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            UUID failed = runlane.trigger("invoices.send", new Payload("secret-name", "key-7"))
                    .runId();
            UUID waited = runlane.trigger("waits.mixed", new ConsoleWaitsIntegrationTests.Names("nap", "go"))
                    .runId();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED
                            && runlane.runs().steps(waited).stream()
                                    .anyMatch(step -> step.name().equals("awaitSignal.go.deadline")));
            runlane.signals().send(waited, "go", "secret-signal");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.runs().get(waited).orElseThrow().status() == RunStatus.SUCCEEDED);

            String detail = body(mvc, get(API + "/runs/" + failed));
            assertThat(detail).doesNotContain("\"secret-name\"");
            assertThat((String) JsonPath.read(detail, "$.run.payloadJson")).isEqualTo(MASK);
            assertThat((String) JsonPath.read(detail, "$.run.idempotencyKey")).isEqualTo("key-7");
            assertThat((String) JsonPath.read(detail, "$.run.failure.message")).isEqualTo("refused secret-name");
            String listed = body(mvc, get(API + "/runs?task=invoices.send"));
            assertThat(JsonPath.<List<String>>read(listed, "$.runs[*].payloadJson"))
                    .containsOnly(MASK);

            String waits = body(mvc, get(API + "/runs/" + waited));
            assertThat(waits).doesNotContain("secret-signal");
            assertThat((String) JsonPath.read(waits, "$.run.payloadJson")).isEqualTo(MASK);
            assertThat(JsonPath.<List<String>>read(waits, "$.signals.items[*].payloadJson"))
                    .containsExactly(MASK);
            assertThat(JsonPath.<List<Object>>read(waits, "$.steps.items[?(@.name == 'awaitSignal.go')].resultJson"))
                    .containsExactly(MASK);
            assertThat(JsonPath.<List<Object>>read(
                            waits, "$.steps.items[?(@.name == 'awaitSignal.go.deadline')].resultJson"))
                    .singleElement()
                    .asString()
                    .isNotEqualTo(MASK)
                    .matches("\\d{4}-.*Z");
            assertThat(JsonPath.<List<Object>>read(waits, "$.steps.items[?(@.name == 'start-child')].resultJson"))
                    .containsExactly(MASK);
            assertThat(body(mvc, get(API + "/runs/" + waited + "/steps"))).doesNotContain("secret-signal");
            assertThat(JsonPath.<List<String>>read(
                            body(mvc, get(API + "/runs/" + waited + "/signals")), "$.items[*].payloadJson"))
                    .containsExactly(MASK);
        }
    }

    /** {@code when-authorized} with a role: shown only to an authenticated user in that role. */
    @Nested
    @DirtiesContext
    @SpringBootTest(
            classes = ConsoleTestApplication.class,
            properties = {
                "runlane.console.enabled=true",
                "runlane.console.show-values=when-authorized",
                "runlane.console.roles=ops"
            })
    class WhenAuthorized {

        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            ConsoleTestApplication.properties(registry, "console_values_authorized");
        }

        @Autowired
        private WebApplicationContext context;

        @Autowired
        private RunlaneTemplate runlane;

        private MockMvc mvc;

        private UUID run;

        @BeforeEach
        void trigger() {
            mvc = MockMvcBuilders.webAppContextSetup(context).build();
            run = runlane.trigger("reports.build", Payload.of("quarterly")).runId();
        }

        @Test
        @DisplayName("S-CO-13: under when-authorized an anonymous user sees masked values")
        void anonymousUsersSeeMaskedValues() throws Exception {
            assertThat((String) JsonPath.read(body(mvc, get(API + "/runs/" + run)), "$.run.payloadJson"))
                    .isEqualTo(MASK);
        }

        @Test
        @DisplayName("S-CO-13: under when-authorized a user without one of the roles sees masked values")
        void usersWithoutTheRoleSeeMaskedValues() throws Exception {
            String detail = body(mvc, get(API + "/runs/" + run).principal(user()));
            assertThat((String) JsonPath.read(detail, "$.run.payloadJson")).isEqualTo(MASK);
        }

        @Test
        @DisplayName("S-CO-13: under when-authorized a user in one of the roles sees the values")
        void usersInTheRoleSeeTheValues() throws Exception {
            MockHttpServletRequestBuilder request = get(API + "/runs/" + run)
                    .principal(user())
                    .with(servlet -> {
                        servlet.addUserRole("ops");
                        return servlet;
                    });
            String detail = body(mvc, request);
            assertThat((String) JsonPath.read(detail, "$.run.payloadJson.name")).isEqualTo("quarterly");
            String listed = body(
                    mvc, get(API + "/runs?task=reports.build").principal(user()).with(servlet -> {
                        servlet.addUserRole("ops");
                        return servlet;
                    }));
            assertThat(JsonPath.<List<String>>read(listed, "$.runs[*].payloadJson.name"))
                    .contains("quarterly");
        }
    }

    private static Principal user() {
        return () -> "ann";
    }

    private static String body(MockMvc mvc, MockHttpServletRequestBuilder request) throws Exception {
        return mvc.perform(request)
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }
}

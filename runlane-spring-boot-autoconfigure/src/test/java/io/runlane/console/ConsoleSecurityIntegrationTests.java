package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.redirectedUrl;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The console behind Spring Boot's default Spring Security configuration (S-CO-2): every request needs a login, and
 * an action needs the CSRF token as well as the console's header; the page hands its scripts the token.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        properties = {
            "spring.autoconfigure.exclude=",
            "runlane.console.enabled=true",
            "runlane.console.access=unrestricted",
            "spring.security.user.name=operator",
            "spring.security.user.password=secret"
        })
class ConsoleSecurityIntegrationTests {

    private static final String API = "/runlane/api";

    private static final Pattern META =
            Pattern.compile("<meta name=\"runlane-csrf-(header|token)\" content=\"([^\"]+)\">");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_security");
    }

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RunlaneTemplate runlane;

    private MockMvc mvc;

    @BeforeEach
    void mvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context)
                .apply(SecurityMockMvcConfigurers.springSecurity())
                .build();
    }

    @Test
    void anAnonymousRequestIsRefusedOrSentToTheLoginPage() throws Exception {
        mvc.perform(get(API + "/overview")).andExpect(status().isUnauthorized());
        mvc.perform(get("/runlane/").accept(MediaType.TEXT_HTML))
                .andExpect(status().isFound())
                .andExpect(redirectedUrl("/login"));
    }

    @Test
    void aSignedInOperatorReadsAndActsWithTheCsrfToken() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("secured")).runId();

        mvc.perform(get(API + "/overview").with(user("operator"))).andExpect(status().isOk());
        mvc.perform(post(API + "/runs/{id}/cancel", parked)
                        .with(user("operator"))
                        .with(csrf())
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"reason\":\"signed in\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.status").value("CANCELLED"));
    }

    @Test
    @DisplayName("S-CO-2: without the CSRF token a signed-in operator's action is refused")
    void anActionWithoutTheCsrfTokenIsRefused() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("no token")).runId();

        mvc.perform(post(API + "/runs/{id}/cancel", parked)
                        .with(user("operator"))
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isForbidden());

        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-RV-5: fork and bulk actions need the CSRF token behind Spring Security, and succeed with it")
    void forkAndBulkActionsNeedTheCsrfToken() throws Exception {
        java.time.Instant from =
                runlane.trigger("reports.build", Payload.of("bulk csrf")).run().createdAt();
        UUID failed = runlane.trigger("checkout.place", Payload.of("fork csrf")).runId();
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);
        String filter = "{\"taskIds\":[\"reports.build\"],\"createdFrom\":\"" + from + "\"}";

        for (String path : java.util.List.of("/runs/" + failed + "/fork", "/runs/cancel-all")) {
            mvc.perform(post(API + path)
                            .with(user("operator"))
                            .header("X-Runlane-Console", "1")
                            .contentType(MediaType.APPLICATION_JSON)
                            .content(filter))
                    .andExpect(status().isForbidden());
        }
        assertThat(runlane.runs().get(failed).orElseThrow().status()).isEqualTo(RunStatus.FAILED);

        mvc.perform(post(API + "/runs/{id}/fork", failed)
                        .with(user("operator"))
                        .with(csrf())
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"fromStep\":\"reserve\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.sourceType").value("FORK"));
        mvc.perform(post(API + "/runs/cancel-all")
                        .with(user("operator"))
                        .with(csrf())
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content(filter))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.acted").value(1));
    }

    @Test
    @DisplayName("S-CO-2: the page carries the session's CSRF token, and an action sending it succeeds")
    void thePageCarriesTheCsrfTokenItsActionsSend() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("page token")).runId();
        MockHttpSession session = new MockHttpSession();
        String page = mvc.perform(get("/runlane/").session(session).with(user("operator")))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
        Matcher meta = META.matcher(page);
        String header = null;
        String token = null;
        while (meta.find()) {
            if (meta.group(1).equals("header")) {
                header = meta.group(2);
            } else {
                token = meta.group(2);
            }
        }
        assertThat(header).isEqualTo("X-CSRF-TOKEN");
        assertThat(token).isNotBlank();

        mvc.perform(post(API + "/runs/{id}/cancel", parked)
                        .session(session)
                        .with(user("operator"))
                        .header(header, token)
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isOk());

        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }
}

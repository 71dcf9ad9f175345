package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunStatus;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The {@link SecurityFilterChain} of docs/console.md in front of an unrestricted console, in a real browser (S-CO-2): an
 * operator signs in on the login page, then cancels a run; the page sends the CSRF token from the {@code XSRF-TOKEN}
 * cookie that {@code csrf.spa()} sets.
 */
@DirtiesContext
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleSecuredBrowserIntegrationTests.WebSecurity.class},
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.autoconfigure.exclude=",
            "runlane.console.enabled=true",
            "runlane.console.access=unrestricted",
            "spring.security.user.name=operator",
            "spring.security.user.password=secret",
            "spring.security.user.roles=OPERATOR"
        })
class ConsoleSecuredBrowserIntegrationTests extends ConsoleBrowserTest {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_browser_secured");
    }

    @Test
    @DisplayName("S-CO-2: behind Spring Security with csrf.spa(), a signed-in operator cancels a run from the page")
    void aSignedInOperatorCancelsARun() {
        UUID parked = runlane.trigger("reports.build", Payload.of("secured")).runId();

        browser.go("#/runs/" + parked);
        browser.type(By.id("username"), "operator");
        browser.type(By.id("password"), "secret");
        browser.click(By.cssSelector("button[type='submit']"));
        browser.await(d -> d.getCurrentUrl().contains("/runlane/"));
        browser.go("#/runs/" + parked);
        browser.awaitText(By.id("run-status"), "Queued");

        browser.click(By.id("action-cancel"));
        browser.click(By.id("confirm-yes"));

        browser.awaitText(By.id("run-status"), "Cancelled");
        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(browser.driver().manage().getCookieNamed("XSRF-TOKEN")).isNotNull();
    }

    /** The configuration of docs/console.md. */
    @Configuration(proxyBeanMethods = false)
    static class WebSecurity {

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.requestMatchers("/runlane/**")
                            .hasRole("OPERATOR")
                            .anyRequest()
                            .authenticated())
                    .formLogin(Customizer.withDefaults())
                    .csrf(csrf -> csrf.spa())
                    .build();
        }
    }
}

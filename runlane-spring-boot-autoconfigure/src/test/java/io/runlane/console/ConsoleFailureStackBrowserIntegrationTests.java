package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The failure box of the run page shows the failure's stack trace, collapsed, as text, or says it is hidden where
 * values are masked (S-EX-35, S-CO-3, S-CO-13).
 */
class ConsoleFailureStackBrowserIntegrationTests {

    /** Markup in the exception's message: shown as text, it runs nothing. */
    private static final String MARKUP = "<img src=x onerror=window.injected=1>";

    /** {@code show-values=always}: the stack trace is shown. */
    @Nested
    @DirtiesContext
    @SpringBootTest(
            classes = ConsoleTestApplication.class,
            webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = {"runlane.console.enabled=true", "runlane.console.show-values=always"})
    class Shown {

        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            ConsoleTestApplication.properties(registry, "console_browser_stack");
        }

        @LocalServerPort
        private int port;

        @Autowired
        private RunlaneTemplate runlane;

        private ConsoleBrowser browser;

        @BeforeEach
        void open() {
            browser = ConsoleBrowser.open("http://localhost:" + port + "/runlane/");
        }

        @AfterEach
        void close() {
            closeBrowser(browser);
        }

        @Test
        @DisplayName(
                "S-EX-35, S-CO-3: the failure box holds the stack trace in a collapsed block that scrolls sideways,"
                        + " and markup in the exception's message is shown as text")
        void failureBoxShowsTheStackTraceAsText() {
            String name = MARKUP + " " + "wide".repeat(120);
            UUID runId = awaitFailed(runlane, name);

            browser.go("#/runs/" + runId);
            WebElement summary = browser.awaitElement(By.cssSelector("#failure details#failure-stack > summary"));
            assertThat(summary.getText()).startsWith("Stack trace");
            assertThat(browser.driver().findElement(By.id("failure-stack-text")).isDisplayed())
                    .as("collapsed at first")
                    .isFalse();

            browser.click(By.cssSelector("#failure-stack > summary"));
            WebElement stack = browser.awaitElement(By.id("failure-stack-text"));
            assertThat(stack.getText())
                    .startsWith("io.runlane.NonRetryableException: refused " + MARKUP)
                    .contains("at " + ConsoleTestApplication.class.getName() + "$Fail.run(");
            @SuppressWarnings("unchecked")
            Map<String, Object> layout =
                    (Map<String, Object>) ((JavascriptExecutor) browser.driver()).executeScript("""
                            const box = document.getElementById('failure');
                            const pre = document.getElementById('failure-stack-text');
                            return {injected: window.injected === undefined, images: box.querySelectorAll('img').length,
                                    boxRight: box.getBoundingClientRect().right,
                                    pageRight: document.querySelector('.content').getBoundingClientRect().right,
                                    scrolls: pre.scrollWidth > pre.clientWidth};
                            """);
            assertThat(layout)
                    .containsEntry("injected", true)
                    .containsEntry("images", 0L)
                    .containsEntry("scrolls", true);
            assertThat(((Number) layout.get("boxRight")).doubleValue())
                    .as("the failure box stays within the page")
                    .isLessThanOrEqualTo(((Number) layout.get("pageRight")).doubleValue());
            browser.screenshot("run-failure-stack");
        }
    }

    /** No show-values property: the actuator's default, never. */
    @Nested
    @DirtiesContext
    @SpringBootTest(
            classes = ConsoleTestApplication.class,
            webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = "runlane.console.enabled=true")
    class Hidden {

        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            ConsoleTestApplication.properties(registry, "console_browser_stack_hidden");
        }

        @LocalServerPort
        private int port;

        @Autowired
        private RunlaneTemplate runlane;

        private ConsoleBrowser browser;

        @BeforeEach
        void open() {
            browser = ConsoleBrowser.open("http://localhost:" + port + "/runlane/");
        }

        @AfterEach
        void close() {
            closeBrowser(browser);
        }

        @Test
        @DisplayName("S-EX-35, S-CO-13: where values are masked, the failure box says the stack trace is hidden")
        void failureBoxSaysTheStackTraceIsHidden() {
            UUID runId = awaitFailed(runlane, "hidden");

            browser.go("#/runs/" + runId);
            browser.awaitText(By.id("failure-stack-hidden"), "Stack trace hidden");
            assertThat(browser.driver().findElements(By.cssSelector("#failure details")))
                    .isEmpty();
            assertThat(browser.driver().findElement(By.id("failure")).getText())
                    .contains("refused hidden")
                    .doesNotContain("$Fail.run(");
        }
    }

    private static UUID awaitFailed(RunlaneTemplate runlane, String name) {
        UUID runId = runlane.trigger("invoices.send", Payload.of(name)).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(runId).orElseThrow().status() == RunStatus.FAILED);
        return runId;
    }

    private static void closeBrowser(ConsoleBrowser browser) {
        if (browser == null) {
            return; // skipped: no browser was found
        }
        browser.printErrors();
        browser.close();
    }
}

package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The run page's live updates in a real browser (S-CO-26): while the run does not change the page reads its detail
 * once and then only when the stream says it changed; when the stream is refused the page polls as before. The page's
 * reads of the detail are counted by a wrapper of {@code fetch} installed before its scripts.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "runlane.console.enabled=true")
class ConsoleLiveBrowserIntegrationTests extends ConsoleBrowserTest {

    /** Counts the page's reads of a run's detail ({@code api/runs/<id>} without a further segment). */
    private static final String COUNT_DETAIL_READS = """
            window.detailReads = 0;
            const original = window.fetch;
            window.fetch = (...args) => {
                if (/api\\/runs\\/[0-9a-f-]{36}(\\?|$)/.test(String(args[0]))) window.detailReads++;
                return original(...args);
            };
            """;

    /** Points the page's EventSource at an address that answers 404, as a server refusing streams would. */
    private static final String REFUSE_STREAMS = """
            const Source = window.EventSource;
            window.EventSource = class extends Source {
                constructor(url) { super(url + '-refused'); }
            };
            """;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_live_browser");
    }

    @BeforeEach
    void countDetailReads() {
        browser.beforeEveryPage(COUNT_DETAIL_READS);
    }

    @Test
    @DisplayName("S-CO-26: an unchanged run is read once, not every 3 seconds; its change and its end arrive by the"
            + " stream")
    void theRunPageReadsTheRunWhenTheStreamSaysItChanged() {
        UUID run = runlane.trigger("exports.generate", Payload.of("live")).runId();
        awaitStatus(run, RunStatus.RUNNING);

        browser.go("#/runs/" + run);
        browser.awaitText(By.id("run-status"), "Running");
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(7)).until(() -> detailReads() == 1);

        runlane.runs().cancel(run, "live");
        browser.awaitText(By.id("run-status"), "Cancelled");
        assertThat(detailReads()).isBetween(2L, 4L);
        browser.screenshot("live-cancelled");
    }

    @Test
    @DisplayName("S-CO-26: when the server refuses the stream the run page polls every 3 seconds as before")
    void theRunPagePollsWhenTheStreamIsRefused() {
        browser.beforeEveryPage(REFUSE_STREAMS);
        UUID run = runlane.trigger("exports.generate", Payload.of("polled")).runId();
        awaitStatus(run, RunStatus.RUNNING);

        browser.go("#/runs/" + run);
        browser.awaitText(By.id("run-status"), "Running");
        await().atMost(Duration.ofSeconds(10)).until(() -> detailReads() >= 3);

        runlane.runs().cancel(run, "polled");
        browser.awaitText(By.id("run-status"), "Cancelled");
    }

    private long detailReads() {
        return ((Number) ((JavascriptExecutor) browser.driver()).executeScript("return window.detailReads ?? 0;"))
                .longValue();
    }
}

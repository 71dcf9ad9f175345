package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The console in a real browser in its default read-only mode (S-CO-2): no action is offered, writes are refused. */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "runlane.console.enabled=true")
class ConsoleReadOnlyBrowserIntegrationTests extends ConsoleBrowserTest {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_browser_read_only");
    }

    @Test
    @DisplayName("S-CO-2, S-RV-5, S-CO-13: a read-only console shows no action, fork or bulk action, masks the payload"
            + " by default, and the page's own writes are refused with 403")
    void aReadOnlyConsoleOffersNoAction() {
        UUID failed = runlane.trigger("invoices.send", new Payload("read-only", "order-7"))
                .runId();
        UUID parked = runlane.trigger("reports.build", Payload.of("read-only")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);

        browser.go("#/runs/" + failed);
        browser.awaitText(By.id("run-status"), "Failed");
        browser.awaitText(By.id("timeline"), "Failed");
        assertThat(browser.driver().findElement(By.id("access")).getText()).isEqualTo("Read-only");
        assertThat(browser.driver().findElements(By.cssSelector("#actions, [id^='action-'], button.button-danger")))
                .isEmpty();
        assertThat(browser.driver().findElement(By.id("payload")).getText())
                .contains("******")
                .doesNotContain("order-7");
        browser.screenshot("read-only-detail");

        browser.go("#/runs/" + parked);
        browser.awaitText(By.id("run-status"), "Queued");
        assertThat(browser.driver().findElements(By.cssSelector("[id^='action-']")))
                .isEmpty();
        Object status = ((JavascriptExecutor) browser.driver()).executeAsyncScript("""
                        const done = arguments[arguments.length - 1];
                        fetch('api/runs/' + arguments[0] + '/cancel', {method: 'POST',
                            headers: {'Content-Type': 'application/json', 'X-Runlane-Console': '1'}, body: '{}'})
                            .then(response => done(response.status));
                        """, parked.toString());
        assertThat(status).isEqualTo(403L);
        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);

        UUID checkout =
                runlane.trigger("checkout.place", Payload.of("read-only fork")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(checkout).orElseThrow().status() == RunStatus.FAILED);
        browser.go("#/runs/" + checkout);
        browser.awaitText(By.id("steps"), "reserve");
        assertThat(browser.driver().findElements(By.cssSelector(".fork-step, .fork-all, [id^='fork-']")))
                .isEmpty();
        browser.go("#/runs?status=FAILED");
        browser.awaitElement(By.cssSelector("tr.run-row"));
        assertThat(browser.driver().findElements(By.cssSelector("#bulk, [id^='bulk-']")))
                .isEmpty();
        for (String path : java.util.List.of("runs/" + checkout + "/fork", "runs/resume-all", "runs/cancel-all")) {
            Object refused = ((JavascriptExecutor) browser.driver()).executeAsyncScript("""
                            const done = arguments[arguments.length - 1];
                            fetch('api/' + arguments[0], {method: 'POST',
                                headers: {'Content-Type': 'application/json', 'X-Runlane-Console': '1'}, body: '{}'})
                                .then(response => done(response.status));
                            """, path);
            assertThat(refused).isEqualTo(403L);
        }
        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);

        browser.go("#/schedules");
        browser.awaitText(By.id("no-schedules"), "No schedules");
        browser.screenshot("schedules-empty");
    }
}

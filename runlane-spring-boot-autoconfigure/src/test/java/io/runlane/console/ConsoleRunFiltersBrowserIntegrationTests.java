package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The runs list's priority column, priority and failure message filters, and look-up by key prefix in a real browser,
 * with a bulk cancel of what a prefix look-up found (S-CO-27, S-OP-15, S-CO-3). Pages are saved under {@code
 * target/console-screenshots/}.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"runlane.console.enabled=true", "runlane.console.access=unrestricted"})
class ConsoleRunFiltersBrowserIntegrationTests extends ConsoleBrowserTest {

    /** A valid idempotency key (S-ID-1) that is markup: shown as text, it runs nothing. */
    private static final String MARKUP_KEY = "<img src=x onerror=window.injected=1>";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_browser_filters");
    }

    private List<String> listedRunIds() {
        return browser.driver().findElements(By.cssSelector("tr.run-row")).stream()
                .map(row -> row.getAttribute("data-run-id"))
                .toList();
    }

    private UUID park(String key, int priority) {
        return runlane.trigger(
                        "reports.build",
                        new Payload("filters " + key, key),
                        TriggerOptions.builder().priority(priority).build())
                .runId();
    }

    private void find() {
        browser.click(By.id("find"));
    }

    @Test
    @DisplayName("S-CO-27, S-OP-15, S-CO-3: the runs list shows each run's priority, filters by a priority range and a"
            + " failure message prefix, looks keys up by prefix, shows a key that is markup as text, and cancels in bulk"
            + " what a prefix found")
    void theRunsListFiltersByPriorityMessageAndKeyPrefix() {
        UUID high = park("ord-7.a", 20);
        UUID low = park("ord-7.b", -20);
        UUID longer = park("ord-70", 0);
        UUID underscore = park("ord_7.c", 0);
        UUID markup = park(MARKUP_KEY, 0);
        UUID failed = runlane.trigger("invoices.send", Payload.of("100%_sure")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);

        browser.go("#/runs?task=reports.build");
        browser.await(d -> listedRunIds().size() == 5);
        assertThat(browser.driver()
                        .findElement(By.cssSelector(".table-runs thead"))
                        .getText())
                .containsIgnoringCase("Priority");
        WebElement highRow = browser.driver().findElement(By.cssSelector("tr[data-run-id='" + high + "']"));
        assertThat(highRow.findElement(By.cssSelector("td.priority-cell")).getText())
                .isEqualTo("+20");
        WebElement lowRow = browser.driver().findElement(By.cssSelector("tr[data-run-id='" + low + "']"));
        assertThat(lowRow.findElement(By.cssSelector("td.priority-cell")).getText())
                .isEqualTo("-20");
        browser.screenshot("runs-priority-column");

        browser.type(By.id("filter-min-priority"), "1");
        find();
        browser.await(d -> listedRunIds().equals(List.of(high.toString())));
        assertThat(browser.driver().getCurrentUrl()).contains("minPriority=1");
        browser.go("#/runs?task=reports.build&minPriority=-100&maxPriority=-1");
        browser.await(d -> listedRunIds().equals(List.of(low.toString())));
        assertThat(browser.driver().findElement(By.id("filter-max-priority")).getAttribute("value"))
                .isEqualTo("-1");

        browser.go("#/runs");
        browser.type(By.id("filter-message"), "refused 100%_");
        find();
        browser.await(d -> listedRunIds().equals(List.of(failed.toString())));
        browser.go("#/runs?message=" + "refused%201_");
        browser.awaitText(By.cssSelector("#runs .empty"), "No runs");

        browser.go("#/runs");
        browser.type(By.id("lookup"), "ord-7.");
        find();
        browser.await(d -> listedRunIds().size() == 2);
        assertThat(listedRunIds()).containsExactlyInAnyOrder(high.toString(), low.toString());
        browser.awaitText(By.id("lookup-note"), "idempotency key prefix");
        browser.screenshot("runs-key-prefix-lookup");

        browser.go("#/runs?lookup=" + "%3Cimg");
        browser.await(d -> listedRunIds().equals(List.of(markup.toString())));
        assertThat(browser.driver()
                        .findElement(By.cssSelector("tr.run-row .key"))
                        .getText())
                .isEqualTo(MARKUP_KEY);
        assertThat(((JavascriptExecutor) browser.driver()).executeScript("return window.injected === undefined"))
                .isEqualTo(true);
        assertThat(browser.driver().findElements(By.cssSelector("#filters img, #runs img")))
                .isEmpty();

        browser.go("#/runs?status=QUEUED&lookup=ord-7.");
        browser.await(d -> listedRunIds().size() == 2);
        browser.click(By.id("bulk-cancel"));
        browser.awaitText(By.id("bulk-scope"), "2 runs");
        browser.awaitText(By.id("bulk-filter"), "idempotency key starting with ord-7.");
        browser.click(By.id("confirm-yes"));
        browser.awaitText(By.id("bulk-outcome"), "2 of 2 matching runs");
        assertThat(runlane.runs().get(high).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.runs().get(low).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.runs().get(longer).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.runs().get(underscore).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }
}

package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunQuery;
import io.runlane.RunStatus;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Triggering a task from the Tasks page in a real browser (S-CO-25): the dialog's payload editor, key and delay, the
 * run it opens, refusals shown in the dialog with nothing written, and markup in the payload shown as text (S-CO-3).
 * Screenshots go to {@code target/console-screenshots/}.
 */
@DirtiesContext
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleTriggerIntegrationTests.Tasks.class},
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "runlane.console.enabled=true",
            "runlane.console.access=unrestricted",
            "runlane.console.show-values=always"
        })
class ConsoleTriggerBrowserIntegrationTests extends ConsoleBrowserTest {

    private static final String MARKUP = "<img src=x onerror=alert(1)>";

    private static final By TRIGGER = By.cssSelector("button.trigger-task[data-task='parcels.ship']");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_trigger_browser");
    }

    @Test
    @DisplayName("S-CO-25, S-CO-3: the dialog triggers the task with the typed payload, key and delay and opens the"
            + " run, whose payload's markup is text")
    void theDialogTriggersTheTaskAndOpensTheRun() {
        browser.go("#/tasks");
        browser.click(TRIGGER);
        WebElement payload = browser.awaitElement(By.id("trigger-payload"));
        assertThat(payload.getDomProperty("value")).isEqualTo("{}");
        assertThat(browser.driver().findElement(By.id("trigger-task")).getText())
                .isEqualTo("parcels.ship");
        replace(payload, "{\"address\": \"" + MARKUP.replace("\"", "\\\"") + "\", \"weight\": 2}");
        browser.type(By.id("trigger-key"), "parcel-" + MARKUP);
        browser.type(By.id("trigger-delay"), "1h");
        browser.screenshot("trigger-dialog");
        browser.click(By.id("trigger-submit"));

        browser.await(d -> d.getCurrentUrl().matches(".*#/runs/[0-9a-f-]{36}$"));
        browser.awaitText(By.id("run-status"), "Scheduled");
        browser.awaitText(By.id("payload"), MARKUP);
        browser.awaitText(By.cssSelector(".facts"), "parcel-" + MARKUP);
        String url = browser.driver().getCurrentUrl();
        UUID run = UUID.fromString(url.substring(url.lastIndexOf('/') + 1));
        assertThat(runlane.runs().get(run).orElseThrow().idempotencyKey()).isEqualTo("parcel-" + MARKUP);
        assertInert("dialog img");
        browser.screenshot("trigger-opened-run");
    }

    @Test
    @DisplayName("S-CO-25: a payload that is not JSON or violates a constraint is refused in the dialog, which stays"
            + " open, and nothing is written")
    void refusalsAreShownInTheDialog() {
        long before = parcels();
        browser.go("#/tasks");
        browser.click(TRIGGER);
        WebElement payload = browser.awaitElement(By.id("trigger-payload"));

        replace(payload, "{\"address\": ");
        browser.click(By.id("trigger-submit"));
        browser.awaitText(By.id("trigger-error"), "payload: is not JSON at line 1");

        replace(payload, "{\"address\": \"" + MARKUP.replace("\"", "\\\"") + "\", \"weight\": \"heavy\"}");
        browser.click(By.id("trigger-submit"));
        browser.awaitText(By.id("trigger-error"), "payload.weight");

        replace(payload, "{\"address\": \" \", \"weight\": 0}");
        browser.click(By.id("trigger-submit"));
        browser.awaitText(By.id("trigger-error"), "address: ");
        assertThat(browser.driver().findElement(By.id("trigger-error")).getText())
                .contains("weight: ");
        assertThat(browser.driver().findElement(By.id("trigger-dialog")).isDisplayed())
                .isTrue();
        assertThat(browser.driver().getCurrentUrl()).endsWith("#/tasks");
        browser.screenshot("trigger-refused");
        browser.click(By.id("trigger-cancel"));
        browser.await(d -> d.findElements(By.id("trigger-dialog")).isEmpty());

        assertThat(parcels()).isEqualTo(before);
        assertInert("dialog img");
    }

    private void replace(WebElement field, String text) {
        field.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
        field.sendKeys(text);
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

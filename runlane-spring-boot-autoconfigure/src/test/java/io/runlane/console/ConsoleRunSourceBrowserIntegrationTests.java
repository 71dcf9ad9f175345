package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.console.ConsoleTestApplication.Payload;
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

/** The runs list's source and schedule filters in a real browser (S-CO-23, S-CO-3). */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "runlane.console.enabled=true")
class ConsoleRunSourceBrowserIntegrationTests extends ConsoleBrowserTest {

    /** A valid schedule id (S-SC-9) that is markup: shown as text, it runs nothing. */
    private static final String MARKUP_ID = "<img src=x onerror=window.injected=1>";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_browser_sources");
    }

    private java.util.List<String> listedRunIds() {
        return browser.driver().findElements(By.cssSelector("tr.run-row")).stream()
                .map(row -> row.getAttribute("data-run-id"))
                .toList();
    }

    @Test
    @DisplayName("S-CO-23, S-CO-3: a schedule's id opens the list of its runs, the source filter hides or shows them,"
            + " and a schedule id that is markup is shown as text")
    void theRunsListFiltersBySourceAndSchedule() {
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport(MARKUP_ID));
        UUID scheduled = runlane.schedules().triggerNow(MARKUP_ID).runId();
        UUID triggered = runlane.trigger("reports.build", Payload.of("by hand")).runId();

        browser.go("#/schedules");
        browser.click(By.cssSelector("a.schedule-runs"));
        browser.await(d -> listedRunIds().equals(java.util.List.of(scheduled.toString())));
        WebElement schedule = browser.awaitElement(By.id("filter-schedule"));
        assertThat(schedule.getAttribute("value")).isEqualTo(MARKUP_ID);
        browser.screenshot("runs-of-schedule");

        browser.go("#/runs?source=TRIGGER");
        browser.await(d -> listedRunIds().contains(triggered.toString()));
        assertThat(listedRunIds()).doesNotContain(scheduled.toString());
        assertThat(browser.driver().findElement(By.id("filter-source")).getAttribute("value"))
                .isEqualTo("TRIGGER");

        browser.go("#/runs?source=SCHEDULE");
        browser.await(d -> listedRunIds().contains(scheduled.toString()));
        assertThat(listedRunIds()).doesNotContain(triggered.toString());
        assertThat(((JavascriptExecutor) browser.driver()).executeScript("return window.injected === undefined"))
                .isEqualTo(true);
        assertThat(browser.driver().findElements(By.cssSelector("#filters img, #runs img")))
                .isEmpty();
    }
}

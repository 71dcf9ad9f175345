package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunStatus;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The Tasks page in a real browser, read-only (S-CO-20, S-CO-21): the catalogue with each task's figures and a link
 * to its runs, the range picker, the SVG charts drawn under the page's Content-Security-Policy for all runs, a queue
 * and a task, and task ids, queue names and schedule ids that look like markup staying text. Screenshots are saved
 * under {@code target/console-screenshots/}.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "runlane.console.enabled=true")
class ConsoleTasksBrowserIntegrationTests extends ConsoleBrowserTest {

    private static final String MARKUP_ID = "\"><img src=x onerror=alert(1)>";

    /**
     * Renames {@code orders.confirm} in the answers of {@code api/tasks} and {@code api/console} to markup, gives it
     * a queue and a schedule named like markup, as a declaration could not but a future field might.
     */
    private static final String MARKUP_TASKS = """
            const original = window.fetch;
            const markup = '"><img src=x onerror=alert(1)>';
            window.fetch = async (...args) => {
                const response = await original(...args);
                const url = String(args[0]);
                if (!/api\\/(tasks|console)(\\?|$)/.test(url)) return response;
                const body = await response.json();
                for (const task of body.tasks) {
                    if (task.id !== 'orders.confirm') continue;
                    task.id = markup;
                    task.queue = '<script>alert(2)</script>';
                    if (task.schedules) task.schedules = [{id: markup, expression: '<b>0 0 2 * * *</b>', zone: 'UTC', paused: false, declared: true}];
                    if (task.keyResolvers) task.keyResolvers = [markup];
                }
                if (body.queues) body.queues.push('<img src=x onerror=alert(3)>');
                return new Response(JSON.stringify(body), {status: 200, headers: {'Content-Type': 'application/json'}});
            };
            """;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_tasks_browser");
    }

    @Test
    @DisplayName("S-CO-20, S-CO-21: the catalogue shows each task's figures, charts per range and scope, and its runs")
    void theCatalogueShowsFiguresChartsAndLinksToRuns() {
        UUID succeeded = runlane.trigger("orders.confirm", Payload.of("a")).runId();
        UUID failed = runlane.trigger("invoices.send", Payload.of("b")).runId();
        awaitStatus(succeeded, RunStatus.SUCCEEDED);
        awaitStatus(failed, RunStatus.FAILED);
        runlane.trigger("reports.build", Payload.of("parked"));

        browser.go("#/tasks?range=1h");
        browser.awaitText(By.cssSelector("tr.task-row[data-task='orders.confirm'] td.finished"), "1");
        browser.awaitText(By.cssSelector("tr.task-row[data-task='orders.confirm'] td.success-rate"), "100.0 %");
        browser.awaitText(By.cssSelector("tr.task-row[data-task='invoices.send'] td.success-rate"), "0.0 %");
        browser.awaitText(By.cssSelector("tr.task-row[data-task='reports.build'] td.active"), "1");
        browser.awaitText(
                By.cssSelector("tr.task-row[data-task='orders.confirm'] td.declaration"), "keys: idempotencyKey");
        assertThat(browser.driver().findElement(By.id("nav-tasks")).getDomAttribute("class"))
                .contains("active");
        // S-CO-25: a read-only console offers no trigger
        assertThat(browser.driver().findElements(By.cssSelector("button.trigger-task")))
                .isEmpty();
        assertThat(browser.driver().findElements(By.cssSelector("#chart-throughput g.chart-bar")))
                .hasSize(61);
        assertThat(browser.driver().findElements(By.cssSelector("#chart-throughput rect.chart-ok")))
                .isNotEmpty();
        assertThat(browser.driver().findElements(By.cssSelector("#chart-failures rect.chart-bad")))
                .isNotEmpty();
        assertThat(browser.driver().findElements(By.cssSelector("#chart-duration circle.chart-p95")))
                .isNotEmpty();
        browser.awaitText(By.id("chart-summary"), "2 finished, 1 failed");
        browser.screenshot("tasks-1h");

        new Select(browser.awaitElement(By.id("chart-scope"))).selectByValue("task:invoices.send");
        browser.await(d -> d.getCurrentUrl().contains("task=invoices.send"));
        browser.awaitText(By.id("chart-title"), "Task invoices.send");
        browser.awaitText(By.id("chart-summary"), "1 finished, 1 failed");
        assertThat(browser.driver()
                        .findElement(By.cssSelector("tr.task-row[data-task='invoices.send']"))
                        .getDomAttribute("class"))
                .contains("selected");

        browser.click(By.cssSelector("#range-picker a[data-range='7d']"));
        browser.await(
                d -> d.getCurrentUrl().contains("range=7d") && d.getCurrentUrl().contains("task=invoices.send"));
        browser.await(d ->
                d.findElements(By.cssSelector("#chart-throughput g.chart-bar")).size() == 43);
        browser.screenshot("tasks-7d-task");

        browser.click(By.cssSelector("tr.task-row[data-task='reports.build'] a.queue-chart-link"));
        browser.awaitText(By.id("chart-title"), "Queue reports");

        browser.click(By.cssSelector("tr.task-row[data-task='orders.confirm'] a.runs-link"));
        browser.await(d -> d.getCurrentUrl().contains("#/runs?task=orders.confirm"));
        browser.await(d -> !d.findElements(By.cssSelector("tr.run-row")).isEmpty()
                && d.findElements(By.cssSelector("tr.run-row")).stream()
                        .allMatch(row -> row.getText().contains("orders.confirm")));
    }

    @Test
    @DisplayName("S-CO-3: task ids, queue names, schedules and key resolvers that look like markup stay text")
    void markupInTasksStaysText() {
        browser.beforeEveryPage(MARKUP_TASKS);
        browser.go("#/tasks?range=24h");

        browser.awaitText(By.cssSelector("#tasks"), MARKUP_ID);
        browser.awaitText(By.cssSelector("#tasks"), "<script>alert(2)</script>");
        browser.awaitText(By.cssSelector("#tasks td.schedules"), "<b>0 0 2 * * *</b>");
        assertThat(new Select(browser.awaitElement(By.id("chart-scope")))
                        .getOptions().stream().map(option -> option.getText()))
                .contains("Task " + MARKUP_ID, "Queue <img src=x onerror=alert(3)>");
        browser.screenshot("tasks-markup");

        new Select(browser.awaitElement(By.id("chart-scope"))).selectByVisibleText("Task " + MARKUP_ID);
        browser.awaitText(By.cssSelector("#charts .alert-error"), "No task");
        assertInert("#app b");
    }
}

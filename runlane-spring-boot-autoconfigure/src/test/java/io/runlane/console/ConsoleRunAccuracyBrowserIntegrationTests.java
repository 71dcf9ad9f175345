package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.console.ConsoleAttemptsIntegrationTests.Waits;
import java.time.Duration;
import java.util.List;
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

/**
 * The run detail and the runs list tell what happened accurately (issue 32, "Accuracy first"), in a real browser:
 * attempts that spent budget apart from resumptions, how each attempt ended, an earlier failure of a run that then
 * succeeded, waits apart from steps, the cancel dialog's wording, tables that fit their cards, and the source filter
 * and prefix look-up of the runs list. Markup in the new fields stays text (S-CO-3). Screenshots go to {@code
 * target/console-screenshots/}.
 */
@DirtiesContext
@SpringBootTest(
        classes = {
            ConsoleTestApplication.class,
            ConsoleAttemptsIntegrationTests.Tasks.class,
            ConsoleWaitsIntegrationTests.Tasks.class
        },
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "runlane.console.enabled=true",
            "runlane.console.show-values=always",
            "runlane.console.access=unrestricted"
        })
class ConsoleRunAccuracyBrowserIntegrationTests extends ConsoleBrowserTest {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_accuracy");
    }

    @Test
    @DisplayName("S-EX-34: a succeeded run that waited five times shows 1 of 3 attempts, its resumptions marked and"
            + " each attempt ended as it did")
    void attemptsThatWaitedShowTheBudgetSpentAndHowEachEnded() {
        UUID run = waitedFor(5);

        browser.go("#/runs/" + run);

        browser.awaitText(By.id("run-status"), "Succeeded");
        browser.awaitText(By.id("run-attempts"), "1 of 3");
        assertThat(browser.driver().findElement(By.id("run-starts")).getText()).isEqualTo("· 6 starts");
        List<String> rows = texts("#attempts tr.attempt-row", "innerText");
        assertThat(rows).hasSize(6);
        assertThat(rows.get(0))
                .contains("6")
                .contains("resumed")
                .contains("Succeeded")
                .doesNotContain("Running");
        assertThat(rows.subList(1, 5))
                .allSatisfy(row -> assertThat(row).contains("resumed").contains("Waiting"));
        assertThat(rows.get(5)).contains("Waiting").doesNotContain("resumed");
        assertThat(String.join("\n", rows)).doesNotContain("Signal consumed");
        assertThat(attributes("#attempts tr.attempt-row", "data-ended-by"))
                .containsExactly("SUCCEEDED", "WAITING", "WAITING", "WAITING", "WAITING", "WAITING");
        browser.go("#/runs?task=approvals.collect");
        browser.awaitText(By.cssSelector("tr.run-row[data-run-id='" + run + "']"), "1/3");
        browser.go("#/runs/" + run);
        browser.awaitText(By.id("run-attempts"), "1 of 3");
        browser.screenshot("accuracy-attempts");
    }

    @Test
    @DisplayName("S-EX-4: a run that succeeded after a failed attempt shows that failure as the last one, retried, in"
            + " neutral colours; a failed run still shows its failure")
    void aSucceededRunShowsItsEarlierFailureAsRetried() {
        UUID retried = runlane.trigger("approvals.flaky", new Waits(0)).runId();
        UUID failed = runlane.trigger("invoices.send", ConsoleTestApplication.Payload.of("order 7"))
                .runId();
        awaitStatus(retried, RunStatus.SUCCEEDED);
        awaitStatus(failed, RunStatus.FAILED);

        browser.go("#/runs/" + retried);

        browser.awaitText(By.id("run-status"), "Succeeded");
        browser.awaitText(By.id("failure-label"), "Last failure (retried)");
        assertThat(browser.driver().findElement(By.id("failure")).getDomAttribute("class"))
                .contains("alert-neutral")
                .doesNotContain("alert-error");
        assertThat(browser.driver().findElement(By.id("failure")).getText()).contains("first attempt fails");
        assertThat(browser.driver().findElement(By.id("run-attempts")).getText())
                .isEqualTo("2 of 3");
        browser.screenshot("accuracy-last-failure");

        browser.go("#/runs/" + failed);
        browser.awaitText(By.id("run-status"), "Failed");
        assertThat(browser.driver().findElement(By.id("failure-label")).getText())
                .isEqualTo("Failure");
        assertThat(browser.driver().findElement(By.id("failure")).getDomAttribute("class"))
                .contains("alert-error");
    }

    @Test
    @DisplayName("S-CO-11, S-CO-3: a run's waits are listed under Waits by kind, not under Steps, and a sleep named"
            + " with markup shows it as text")
    void waitsAreShownAsWaits() {
        String markup = "<img src=x onerror=alert(1)>";
        UUID run = runlane.trigger("waits.mixed", new ConsoleWaitsIntegrationTests.Names(markup, "go"))
                .runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().steps(run).stream()
                        .anyMatch(step -> step.name().equals("awaitSignal.go.deadline")));

        browser.go("#/runs/" + run);

        browser.await(d -> attributes("#waits tr.wait-row", "data-kind").size() == 2);
        assertThat(attributes("#waits tr.wait-row", "data-kind")).containsExactly("signal", "sleep");
        assertThat(texts("#waits tr.wait-row", "innerText").get(0))
                .contains("go")
                .contains("Signal")
                .contains("Waiting");
        assertThat(texts("#waits tr.wait-row", "innerText").get(1))
                .contains(markup)
                .contains("Sleep");
        assertThat(attributes("#steps tr.step-row", "data-step-name")).containsExactly("prepare");
        assertInert();
        runlane.signals().send(run, "go", "yes");
        awaitStatus(run, RunStatus.SUCCEEDED);
        browser.await(d -> attributes("#waits tr.wait-row", "data-kind").size() == 3);
        assertThat(attributes("#waits tr.wait-row", "data-kind")).containsExactly("result", "signal", "sleep");
        assertThat(texts("#waits tr.wait-row", "innerText").get(0))
                .contains("Run result")
                .contains("Succeeded");
        assertThat(texts("#waits tr.wait-row", "innerText").get(1)).contains("Received");
        assertThat(attributes("#steps tr.step-row", "data-step-name")).containsExactly("start-child", "prepare");
        assertInert();
        browser.screenshot("accuracy-waits");
    }

    @Test
    @DisplayName("S-CO-12: the cancel dialog of a waiting run that started says it will not resume, not that it will"
            + " not start; the Signals table fits its card")
    void theCancelDialogOfAWaitingRunSaysItWillNotResume() {
        UUID run = runlane.trigger("approvals.collect", new Waits(1)).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(run).orElseThrow().status() == RunStatus.WAITING);
        String longKey = "dedup-" + "x".repeat(120);
        runlane.signals().send(run, "approval-0", java.util.Map.of("note", "y".repeat(300)), longKey);

        browser.go("#/runs/" + run);
        browser.awaitText(By.id("run-status"), "Waiting");
        browser.await(d -> !attributes("#signals tr.signal-row", "class").isEmpty());
        Boolean fits = (Boolean) ((JavascriptExecutor) browser.driver())
                .executeScript("const card = document.getElementById('signals');"
                        + " return card.querySelector('table').getBoundingClientRect().right"
                        + " <= card.getBoundingClientRect().right + 1;");
        assertThat(fits).isTrue();
        browser.click(By.id("action-cancel"));
        browser.awaitText(By.id("cancel-consequence"), "will not resume");
        assertThat(browser.driver().findElement(By.id("cancel-consequence")).getText())
                .doesNotContain("will not start");
        browser.screenshot("accuracy-cancel-waiting");
        browser.click(By.id("confirm-no"));
    }

    /** A run of {@code approvals.collect} that waited for {@code signals} signals in turn and succeeded. */
    private UUID waitedFor(int signals) {
        UUID run = runlane.trigger("approvals.collect", new Waits(signals)).runId();
        for (int i = 1; i <= signals; i++) {
            int attempts = i;
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Run current = runlane.runs().get(run).orElseThrow();
                return current.status() == RunStatus.WAITING && current.attempts() == attempts;
            });
            runlane.signals().send(run, "approval-" + i, "yes");
        }
        awaitStatus(run, RunStatus.SUCCEEDED);
        return run;
    }
}

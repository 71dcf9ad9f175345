package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.console.ConsoleTestApplication.Payload;
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
 * The run page's waterfall in a real browser (S-CO-24): attempts, the handler's steps and the engine's waits as bars
 * on one time axis, the internal wait steps folded into their wait, placed by the script under the page's
 * Content-Security-Policy, and step and sleep names written as markup shown as text (S-CO-3). Screenshots go to
 * {@code target/console-screenshots/}.
 */
@DirtiesContext
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleWaitsIntegrationTests.Tasks.class},
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"runlane.console.enabled=true", "runlane.console.show-values=always"})
class ConsoleWaterfallBrowserIntegrationTests extends ConsoleBrowserTest {

    private static final String MARKUP = "<img src=x onerror=alert(1)>";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_waterfall");
    }

    @Test
    @DisplayName("S-CO-24, S-CO-11: a run that slept, awaited a signal and a child's result shows its attempts, its"
            + " steps and one bar per wait, none for the wait's internal steps, the sleep's markup name as text")
    void waitsAreFoldedIntoOneBarEach() {
        UUID run = runlane.trigger("waits.mixed", new ConsoleWaitsIntegrationTests.Names(MARKUP, "go"))
                .runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().steps(run).stream()
                        .anyMatch(step -> step.name().equals("awaitSignal.go.deadline")));

        browser.go("#/runs/" + run);
        browser.awaitElement(By.id("waterfall"));
        browser.await(d ->
                attributes("#waterfall .wf-row[data-type='wait']", "data-name").size() == 2);
        assertThat(attributes("#waterfall .wf-row[data-type='wait']", "data-name"))
                .containsExactly(MARKUP, "go");
        assertThat(texts("#waterfall .wf-wait .wf-bar", "title").get(1)).contains("waiting");
        assertThat(attributes("#waterfall .wf-bar.wf-open", "class")).isNotEmpty();

        runlane.signals().send(run, "go", "yes");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(run).orElseThrow().status() == RunStatus.SUCCEEDED);
        browser.awaitText(By.id("run-status"), "Succeeded");
        browser.await(d ->
                attributes("#waterfall .wf-row[data-type='wait']", "data-name").size() == 3);

        List<String> types = attributes("#waterfall .wf-row:not(.wf-head)", "data-type");
        List<String> names = attributes("#waterfall .wf-row:not(.wf-head)", "data-name");
        assertThat(types.get(0)).isEqualTo("attempt");
        // 3 starts, or 4 when the run parked for the child's result (the child may end before it is awaited)
        assertThat(types).filteredOn("attempt"::equals).hasSizeBetween(3, 4);
        assertThat(names)
                .contains("prepare", "start-child", MARKUP, "go")
                .noneMatch(name -> name.startsWith("awaitSignal.") || name.startsWith("awaitResult."));
        assertThat(texts("#waterfall .wf-wait .wf-name", "textContent"))
                .containsExactly(
                        "Sleep: " + MARKUP,
                        "Signal: go",
                        texts("#waterfall .wf-wait .wf-name", "textContent").get(2));
        assertThat(texts("#waterfall .wf-wait .wf-name", "textContent").get(2)).startsWith("Run result: …");
        assertThat(texts("#waterfall .wf-wait .wf-bar", "title"))
                .satisfiesExactly(
                        sleep -> assertThat(sleep).contains("slept"),
                        signal -> assertThat(signal).contains("received"),
                        result -> assertThat(result).contains("Succeeded"));
        assertThat(attributes("#waterfall .wf-bar.wf-open", "class")).isEmpty();
        assertPlacedInOrder();
        assertInert();
        browser.screenshot("waterfall-waits");
    }

    @Test
    @DisplayName("S-CO-24, S-CO-3: a failed run's steps follow one another within its attempt, and a step named with"
            + " markup is shown as text in its label and tooltip")
    void stepsFollowOneAnotherWithinTheirAttempt() {
        UUID run = runlane.trigger("checkout.place", Payload.of(MARKUP)).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(run).orElseThrow().status() == RunStatus.FAILED);

        browser.go("#/runs/" + run);
        browser.awaitText(By.id("run-status"), "Failed");
        browser.awaitElement(By.id("waterfall"));

        assertThat(attributes("#waterfall .wf-row:not(.wf-head)", "data-type"))
                .containsExactly("attempt", "step", "step");
        String charge = ConsoleTestApplication.chargeStep(Payload.of(MARKUP));
        assertThat(texts("#waterfall .wf-step .wf-name", "textContent")).containsExactly(charge, "reserve");
        assertThat(texts("#waterfall .wf-step .wf-bar", "title").get(0)).startsWith(charge + " · step · ");
        assertThat(attributes("#waterfall .wf-attempt .wf-bar", "class").get(0)).contains("status-failed");
        assertPlacedInOrder();
        assertInert();
        browser.screenshot("waterfall-steps");
    }

    /**
     * Every bar lies within the track, placed through CSSOM (no style attribute set from markup), and each step starts
     * at or after the bar above it among the steps.
     */
    @SuppressWarnings("unchecked")
    private void assertPlacedInOrder() {
        List<List<Number>> bars = (List<List<Number>>) ((JavascriptExecutor) browser.driver())
                .executeScript("return [...document.querySelectorAll('#waterfall .wf-row:not(.wf-head)')].map(row => {"
                        + " const track = row.querySelector('.wf-track').getBoundingClientRect();"
                        + " const bar = row.querySelector('.wf-bar').getBoundingClientRect();"
                        + " return [bar.left - track.left, track.right - bar.right,"
                        + " parseFloat(row.querySelector('.wf-bar').style.left)]; });");
        assertThat(bars).isNotEmpty().allSatisfy(bar -> {
            assertThat(bar.get(0).doubleValue()).isGreaterThanOrEqualTo(-0.5);
            assertThat(bar.get(1).doubleValue()).isGreaterThanOrEqualTo(-2.5);
        });
        List<Double> stepStarts = ((List<List<Number>>) ((JavascriptExecutor) browser.driver())
                        .executeScript("return [...document.querySelectorAll('#waterfall .wf-step .wf-bar')]"
                                + ".map(bar => [parseFloat(bar.style.left)]);"))
                .stream().map(bar -> bar.get(0).doubleValue()).toList();
        assertThat(stepStarts).isSorted();
    }
}

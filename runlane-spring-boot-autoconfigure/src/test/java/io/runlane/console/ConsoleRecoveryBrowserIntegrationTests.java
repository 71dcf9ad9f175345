package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.TriggerOptions;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The console's recovery actions in a real browser with {@code runlane.console.access=unrestricted} (S-RV-5): forking a
 * failed run from one of its steps and after all of them, and resuming and cancelling the runs list's filter in bulk,
 * each confirmed, with the resulting runs checked in the database. Pages are saved under {@code
 * target/console-screenshots/}.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "runlane.console.enabled=true",
            "runlane.console.show-values=always",
            "runlane.console.access=unrestricted"
        })
class ConsoleRecoveryBrowserIntegrationTests extends ConsoleBrowserTest {

    private static final String SCRIPT = "<script>alert(1)</script>";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_browser_recovery");
    }

    @Test
    @DisplayName(
            "S-RV-5, S-CO-3: a failed run is forked from a step named with markup after confirmation; the page opens"
                    + " the fork, which holds a copy of the steps before it")
    void aFailedRunIsForkedFromAStep() {
        Payload payload = Payload.of(SCRIPT);
        UUID source = failedCheckout(payload);
        browser.go("#/runs/" + source);
        browser.awaitText(By.id("run-status"), "Failed");
        browser.awaitText(By.id("steps"), SCRIPT);
        assertInert();

        browser.click(By.cssSelector("tr.step-row[data-step-name='reserve'] button.fork-step"));
        browser.awaitText(By.id("fork-step-name"), "reserve");
        browser.screenshot("fork-dialog");
        browser.click(By.id("confirm-yes"));

        UUID fork = awaitFork(source, 1);
        browser.await(d -> d.getCurrentUrl().endsWith("#/runs/" + fork));
        browser.awaitText(By.id("run-id"), fork.toString());
        awaitStatus(fork, RunStatus.FAILED);
        List<RunStep> copied = runlane.runs().steps(fork);
        assertThat(copied)
                .extracting(RunStep::name)
                .containsExactly(ConsoleTestApplication.chargeStep(payload), "reserve");
        assertThat(copied.get(0).completedAt())
                .isEqualTo(runlane.runs().steps(source).get(0).completedAt());
        assertThat(copied.get(1).completedAt())
                .isAfter(runlane.runs().steps(source).get(1).completedAt());
        browser.awaitText(By.id("run-status"), "Failed");
        browser.screenshot("fork-opened");

        browser.go("#/runs/" + source);
        browser.awaitText(By.id("run-status"), "Failed");
        browser.await(d -> d.findElements(By.cssSelector(".toast")).isEmpty());
        browser.click(By.cssSelector(
                "tr.step-row[data-step-name='" + ConsoleTestApplication.chargeStep(payload) + "'] button.fork-step"));
        browser.awaitText(By.id("fork-step-name"), SCRIPT);
        assertInert();
        browser.click(By.id("confirm-no"));
        assertThat(runlane.runs().get(source).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
        assertThat(forksOf(source)).hasSize(1);
    }

    @Test
    @DisplayName("S-RV-5: \"Fork after all steps\" creates a fork that replays every recorded step")
    void aFailedRunIsForkedAfterAllSteps() {
        UUID source = failedCheckout(Payload.of("after all"));
        browser.go("#/runs/" + source);
        browser.awaitText(By.id("run-status"), "Failed");

        browser.click(By.id("fork-all"));
        browser.click(By.id("confirm-yes"));

        UUID fork = awaitFork(source, 1);
        browser.await(d -> d.getCurrentUrl().endsWith("#/runs/" + fork));
        awaitStatus(fork, RunStatus.FAILED);
        assertThat(runlane.runs().steps(fork))
                .extracting(RunStep::completedAt)
                .containsExactlyElementsOf(runlane.runs().steps(source).stream()
                        .map(RunStep::completedAt)
                        .toList());
    }

    @Test
    @DisplayName("S-RV-5: the runs list's filter is resumed and then cancelled in bulk after a confirmation naming the"
            + " filter and the count; the result, with a skipped run and its reason, is shown in the page")
    void theFilteredListIsResumedAndCancelledInBulk() {
        TriggerOptions released = TriggerOptions.builder()
                .idempotencyKeyTtl(IdempotencyKeyTtl.active())
                .build();
        List<UUID> cancelled = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            cancelled.add(
                    runlane.trigger("reports.build", Payload.of("bulk " + i)).runId());
        }
        UUID keyed = runlane.trigger("reports.build", new Payload("bulk keyed", "bulk-key"), released)
                .runId();
        for (UUID id : cancelled) {
            runlane.runs().cancel(id, "paused by hand");
        }
        runlane.runs().cancel(keyed, "paused by hand");
        UUID owner = runlane.trigger("reports.build", new Payload("bulk owner", "bulk-key"), released)
                .runId();

        browser.go("#/runs?status=CANCELLED&task=reports.build");
        browser.awaitElement(By.cssSelector("tr.run-row"));
        assertThat(browser.awaitElement(By.id("bulk-cancel")).isEnabled()).isFalse();
        browser.click(By.id("bulk-resume"));
        browser.awaitText(By.id("bulk-scope"), "4 runs");
        browser.awaitText(By.id("bulk-filter"), "status Cancelled · task reports.build");
        browser.screenshot("bulk-resume-dialog");
        browser.click(By.id("confirm-yes"));

        browser.awaitText(By.id("bulk-outcome"), "Resumed: 3 of 4 matching runs.");
        browser.awaitText(By.id("bulk-outcome"), "idempotency_key_active");
        browser.awaitText(By.id("bulk-outcome"), keyed.toString().substring(28));
        browser.screenshot("bulk-resume-result");
        assertThat(cancelled).allSatisfy(id -> assertThat(statusOf(id)).isEqualTo(RunStatus.QUEUED));
        assertThat(statusOf(keyed)).isEqualTo(RunStatus.CANCELLED);
        browser.await(d -> d.findElements(By.cssSelector("tr.run-row")).size() == 1);

        browser.go("#/runs?status=QUEUED&task=reports.build");
        browser.awaitElement(By.cssSelector("tr.run-row"));
        assertThat(browser.awaitElement(By.id("bulk-resume")).isEnabled()).isFalse();
        browser.click(By.id("bulk-cancel"));
        browser.awaitText(By.id("bulk-scope"), "4 runs");
        browser.click(By.id("confirm-yes"));

        browser.awaitText(By.id("bulk-outcome"), "Cancelled or asked to stop: 4 of 4 matching runs.");
        browser.awaitText(By.cssSelector("#runs .empty"), "No runs");
        browser.screenshot("bulk-cancel-result");
        List<UUID> queued = new ArrayList<>(cancelled);
        queued.add(owner);
        assertThat(queued).allSatisfy(id -> assertThat(statusOf(id)).isEqualTo(RunStatus.CANCELLED));
        assertThat(runlane.runs().events(owner))
                .anySatisfy(event -> assertThat(event.detail()).contains("cancelled in bulk"));
    }

    private UUID failedCheckout(Payload payload) {
        UUID source = runlane.trigger("checkout.place", payload).runId();
        awaitStatus(source, RunStatus.FAILED);
        return source;
    }

    private UUID awaitFork(UUID source, int count) {
        await().atMost(Duration.ofSeconds(20)).until(() -> forksOf(source).size() == count);
        return forksOf(source).get(0);
    }

    private List<UUID> forksOf(UUID source) {
        return runlane
                .runs()
                .list(RunQuery.builder()
                        .taskIds("checkout.place")
                        .limit(RunQuery.MAX_LIMIT)
                        .build())
                .items()
                .stream()
                .filter(run -> source.equals(run.sourceRunId()))
                .map(Run::id)
                .toList();
    }

    private RunStatus statusOf(UUID runId) {
        return runlane.runs().get(runId).orElseThrow().status();
    }
}

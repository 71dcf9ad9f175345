package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.ScheduleDefinition;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.console.ConsoleTestApplication.Entries;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The console in a real browser with {@code runlane.console.access=unrestricted} (S-CO-1..3): the overview, filtering
 * runs, a run's timeline, cancelling a run from the page, and stored strings that look like markup staying text.
 * Each page is saved under {@code target/console-screenshots/}.
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
class ConsoleBrowserIntegrationTests extends ConsoleBrowserTest {

    static final String SCRIPT = "<script>alert(1)</script>";

    static final String IMAGE = "\"><img src=x onerror=alert(1)>";

    private static volatile boolean seeded;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_browser");
    }

    @Autowired
    private JdbcTemplate jdbc;

    @Autowired
    private RunlaneProperties properties;

    @BeforeEach
    void open() {
        seed();
    }

    @Test
    void theOverviewShowsQueuesThroughputAndTheWorker() {
        UUID held = runlane.trigger("exports.generate", Payload.of("export 7")).runId();
        awaitStatus(held, RunStatus.RUNNING);
        browser.go("#/");

        browser.awaitText(By.cssSelector("#queues tr[data-queue='reports']"), "reports");
        browser.awaitText(By.id("worker"), "Running");
        browser.awaitText(By.id("leases"), "this instance");
        browser.awaitText(By.id("schedules-summary"), "none");
        assertThat(browser.driver().findElements(By.cssSelector("#throughput .bar-slot")))
                .hasSize(12);
        assertThat(browser.driver().findElements(By.cssSelector("#throughput .bar-segment.status-succeeded")))
                .isNotEmpty();
        assertThat(browser.driver().findElement(By.id("access")).getText()).isEqualTo("Unrestricted");
        browser.screenshot("overview");
        runlane.runs().cancel(held, "screenshot taken");
        awaitStatus(held, RunStatus.CANCELLED);
    }

    @Test
    void runsAreFilteredByStatus() {
        browser.go("#/runs");
        browser.awaitElement(By.cssSelector("tr.run-row"));

        new Select(browser.awaitElement(By.id("filter-status"))).selectByValue("FAILED");

        browser.await(d -> d.getCurrentUrl().contains("status=FAILED"));
        browser.await(d -> {
            List<WebElement> rows = d.findElements(By.cssSelector("tr.run-row"));
            return !rows.isEmpty()
                    && rows.stream().allMatch(row -> "FAILED".equals(row.getDomAttribute("data-status")));
        });
        browser.go("#/runs");
        browser.awaitElement(By.cssSelector("tr.run-row"));
        browser.screenshot("runs");
    }

    @Test
    void runsArePagedWithACursor() {
        browser.go("#/runs?task=orders.confirm");
        browser.awaitText(By.cssSelector(".pager"), "Page 1");
        List<String> first = runIds();
        assertThat(first).hasSize(25);

        browser.click(By.id("page-older"));
        browser.awaitText(By.cssSelector(".pager"), "Page 2");
        List<String> second = runIds();
        assertThat(second).isNotEmpty().doesNotContainAnyElementsOf(first);

        browser.click(By.id("page-newer"));
        browser.awaitText(By.cssSelector(".pager"), "Page 1");
        assertThat(runIds()).isEqualTo(first);
    }

    @Test
    void aRunIsLookedUpByItsKey() {
        UUID keyed = runlane.trigger("reports.build", new Payload("lookup", "invoice-2026-0042"))
                .runId();
        browser.go("#/runs");

        browser.type(By.id("lookup"), "invoice-2026-0042");
        browser.click(By.id("find"));

        browser.awaitText(By.id("lookup-note"), "idempotency key");
        assertThat(browser.driver().findElements(By.cssSelector("tr.run-row")))
                .singleElement()
                .satisfies(row -> assertThat(row.getDomAttribute("data-run-id")).isEqualTo(keyed.toString()));
    }

    @Test
    void aRunsDetailShowsItsTimelineAttemptsAndPayload() {
        UUID failed = runlane.trigger("invoices.send", new Payload("order 1042", "order-1042"))
                .runId();
        awaitStatus(failed, RunStatus.FAILED);

        browser.go("#/runs/" + failed);

        browser.awaitText(By.id("run-status"), "Failed");
        browser.awaitText(By.cssSelector("#timeline .timeline-item"), "Created");
        assertThat(browser.driver().findElements(By.cssSelector("#timeline .timeline-item")))
                .extracting(item -> item.getDomAttribute("data-type"))
                .containsSubsequence("FAILED", "CLAIMED", "CREATED");
        browser.awaitText(By.id("attempts"), "refused order 1042");
        browser.awaitText(By.id("failure"), "refused order 1042");
        browser.awaitText(By.id("payload"), "\"order 1042\"");
        assertThat(browser.driver().findElements(By.id("action-retry"))).hasSize(1);
        assertThat(browser.driver().findElements(By.id("steps"))).isEmpty();
        browser.screenshot("run-detail");
    }

    @Test
    @DisplayName("S-CO-2: cancelling a run from the page asks for confirmation and shows the new status")
    void aRunIsCancelledFromThePage() {
        UUID parked = runlane.trigger("reports.build", Payload.of("cancel me")).runId();
        browser.go("#/runs/" + parked);
        browser.awaitText(By.id("run-status"), "Queued");

        browser.click(By.id("action-cancel"));
        browser.type(By.id("confirm-reason"), "customer withdrew the order");
        browser.screenshot("cancel-dialog");
        browser.click(By.id("confirm-yes"));

        browser.awaitText(By.id("run-status"), "Cancelled");
        browser.awaitText(By.id("timeline"), "customer withdrew the order");
        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(browser.driver().findElements(By.id("action-cancel"))).isEmpty();
    }

    @Test
    @DisplayName("S-RV-5: a cancelled run is resumed from the page after confirmation and is queued again in place")
    void aCancelledRunIsResumedFromThePage() {
        UUID parked = runlane.trigger("reports.build", Payload.of("resume me")).runId();
        runlane.runs().cancel(parked, "paused by hand");
        browser.go("#/runs/" + parked);
        browser.awaitText(By.id("run-status"), "Cancelled");

        browser.click(By.id("action-resume"));
        browser.screenshot("resume-dialog");
        browser.click(By.id("confirm-yes"));

        browser.awaitText(By.id("run-status"), "Queued");
        assertThat(browser.driver().getCurrentUrl()).endsWith("#/runs/" + parked);
        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
        assertThat(browser.driver().findElements(By.id("action-resume"))).isEmpty();
    }

    @Test
    @DisplayName("S-CO-3: a payload, key, failure message and reason that look like markup are shown as text")
    void storedMarkupStaysText() {
        UUID failed =
                runlane.trigger("invoices.send", new Payload(SCRIPT, IMAGE)).runId();
        UUID cancelled =
                runlane.trigger("reports.build", new Payload(IMAGE, SCRIPT)).runId();
        runlane.runs().cancel(cancelled, SCRIPT + IMAGE);
        awaitStatus(failed, RunStatus.FAILED);

        browser.go("#/runs/" + failed);
        browser.awaitText(By.id("failure"), "refused " + SCRIPT);
        browser.awaitText(By.id("payload"), SCRIPT);
        assertThat(browser.driver().findElement(By.id("run-task")).getText()).isEqualTo("invoices.send");
        assertThat(browser.driver().findElement(By.cssSelector(".facts")).getText())
                .contains(IMAGE);
        assertInert();
        browser.screenshot("xss-detail");

        browser.go("#/runs/" + cancelled);
        browser.awaitText(By.id("timeline"), SCRIPT + IMAGE);
        assertInert();

        browser.go("#/runs?lookup=" + java.net.URLEncoder.encode(IMAGE, java.nio.charset.StandardCharsets.UTF_8));
        browser.awaitElement(By.cssSelector("tr.run-row"));
        assertThat(browser.driver().findElement(By.id("runs")).getText()).contains(IMAGE);
        assertInert();
    }

    @Test
    @DisplayName("S-CO-1, S-CO-3: a run's recorded steps and result are shown, markup in them as text")
    void aRunsStepsAndResultAreShown() {
        UUID quote =
                runlane.trigger("quotes.compute", new Payload(SCRIPT, IMAGE)).runId();
        awaitStatus(quote, RunStatus.SUCCEEDED);

        browser.go("#/runs/" + quote);

        browser.awaitText(By.id("steps"), "fetch-prices");
        browser.awaitText(By.id("steps"), "label");
        browser.awaitText(By.id("result"), "\"total\": 42");
        browser.awaitText(By.id("result"), SCRIPT);
        browser.click(By.cssSelector("#steps tr.step-row:last-child details summary"));
        browser.awaitText(By.id("steps"), "40");
        assertInert();
        browser.screenshot("run-detail-steps");
    }

    @Test
    @DisplayName("S-CO-1, S-CO-3: steps, signals and a result appear as sections when the detail has them, as text")
    void stepsSignalsAndResultAppearWhenTheDetailHasThem() {
        UUID succeeded =
                runlane.trigger("orders.confirm", Payload.of("with steps")).runId();
        awaitStatus(succeeded, RunStatus.SUCCEEDED);
        browser.beforeEveryPage(DETAIL_WITH_STEPS_SIGNALS_AND_RESULT);

        browser.go("#/runs/" + succeeded);

        browser.awaitText(By.id("steps"), "reserve-stock");
        browser.awaitText(By.id("steps"), SCRIPT);
        browser.awaitText(By.id("signals"), "approved");
        browser.awaitText(By.id("signals"), "Pending");
        browser.awaitText(By.id("result"), "\"total\": 42");
        browser.awaitText(By.id("result"), IMAGE.replace("\"", "\\\""));
        assertThat(browser.driver().findElement(By.id("run-status")).getText()).isEqualTo("Succeeded");
        assertInert();
        browser.screenshot("run-detail-signals");
    }

    @Test
    @DisplayName("S-CO-10, S-CO-26, S-CO-3: Load more appends older steps and signals, the refresh on a change keeps"
            + " them without fetching them again, and markup in step names and signal payloads stays text")
    void loadMoreAppendsOlderStepsAndSignals() {
        browser.beforeEveryPage(RECORD_REQUESTS);
        UUID ledger = runlane.trigger("ledger.replay", new Entries(120, SCRIPT)).runId();
        String schema = properties.getSchema().getName();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> jdbc.queryForObject(
                                "SELECT count(*) FROM " + schema + ".run_steps WHERE run_id = ?", Long.class, ledger)
                        == 120);
        for (int i = 1; i <= 60; i++) {
            runlane.signals().send(ledger, "note", Map.of("text", (i == 1) ? IMAGE : "note " + i));
        }
        try {
            browser.go("#/runs/" + ledger);

            browser.awaitText(By.cssSelector("#steps .card-header"), "120 completed · 50 shown");
            assertThat(rows("#steps tr.step-row")).hasSize(50);
            browser.click(By.id("load-more-steps"));
            browser.await(d -> rows("#steps tr.step-row").size() == 100);
            browser.click(By.id("load-more-steps"));
            browser.await(d -> rows("#steps tr.step-row").size() == 120);
            assertThat(browser.driver().findElements(By.id("load-more-steps"))).isEmpty();
            assertThat(texts("#steps tr.step-row", "innerText"))
                    .hasSize(120)
                    .allSatisfy(row -> assertThat(row).startsWith(SCRIPT + " "));
            browser.awaitText(By.cssSelector("#signals .card-header"), "60 signals · 50 shown");
            browser.click(By.id("load-more-signals"));
            browser.await(d -> rows("#signals tr.signal-row").size() == 60);
            assertThat(texts("#signals", "textContent"))
                    .singleElement()
                    .asString()
                    .contains(IMAGE.replace("\"", "\\\""));

            // The page re-reads the run when its live stream reports a change (S-CO-26): here a new signal.
            long refreshes = requests("api/runs/" + ledger + "$");
            runlane.signals().send(ledger, "note", Map.of("text", "note 61"));
            browser.await(d -> requests("api/runs/" + ledger + "$") >= refreshes + 1);
            browser.await(d -> rows("#signals tr.signal-row").size() == 61);
            assertThat(rows("#steps tr.step-row")).hasSize(120);
            assertThat(requests("/steps\\?cursor=")).isEqualTo(2);
            assertThat(requests("/signals\\?cursor=")).isEqualTo(1);
            assertThat(browser.driver().findElement(By.id("run-status")).getText())
                    .isEqualTo("Running");
            assertInert();
            ((org.openqa.selenium.JavascriptExecutor) browser.driver())
                    .executeScript("document.getElementById('steps').scrollIntoView()");
            browser.screenshot("run-detail-load-more");
        } finally {
            runlane.runs().cancel(ledger, "test over");
            awaitStatus(ledger, RunStatus.CANCELLED);
        }
    }

    @Test
    @DisplayName("S-CO-2: a schedule is paused from the page after a confirmation")
    void aScheduleIsPausedFromThePage() {
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport("nightly-report"));
        runlane.schedules()
                .upsert(ScheduleDefinition.builder("hourly-digest", "reports.build")
                        .every(Duration.ofHours(1))
                        .payload(new Payload("hourly", ""))
                        .build());
        browser.go("#/schedules");
        browser.awaitText(By.cssSelector("tr[data-schedule='nightly-report']"), "0 0 2 * * *");
        browser.screenshot("schedules");

        browser.click(By.cssSelector("tr[data-schedule='nightly-report'] button[data-action='pause']"));
        browser.click(By.id("confirm-yes"));

        browser.awaitText(By.cssSelector("tr[data-schedule='nightly-report']"), "Paused");
        assertThat(runlane.schedules().get("nightly-report").orElseThrow().paused())
                .isTrue();
        runlane.schedules().delete("hourly-digest");
    }

    /**
     * Adds {@code steps}, {@code signals} and {@code run.resultJson} to the answers of {@code api/runs/{id}}, as the
     * engine's durable steps, signals and results will provide them, with names that look like markup.
     */
    private static final String DETAIL_WITH_STEPS_SIGNALS_AND_RESULT = """
            const original = window.fetch;
            window.fetch = async (...args) => {
                const response = await original(...args);
                if (!/api\\/runs\\/[0-9a-f-]{36}$/.test(String(args[0]))) return response;
                const detail = await response.json();
                const at = detail.run.createdAt;
                detail.steps = {total: 2, totalCapped: false, nextCursor: null, items: [
                    {name: 'reserve-stock', occurrence: 1, stepId: 'reserve-stock#1', completedAt: at, resultJson: {reserved: 3}},
                    {name: '<script>alert(1)</script>', occurrence: 1, stepId: 's#1', completedAt: at, resultJson: null}
                ]};
                detail.signals = {total: 2, totalCapped: false, nextCursor: null, items: [
                    {id: '7d1c0c3e-0000-4000-8000-000000000001', name: 'approved', payloadJson: {by: 'ops'}, sentAt: at, consumedAt: at, deduplicationKey: null},
                    {id: '7d1c0c3e-0000-4000-8000-000000000002', name: 'reminder', payloadJson: {}, sentAt: at, consumedAt: null, deduplicationKey: '"><img src=x onerror=alert(1)>'}
                ]};
                detail.run.resultJson = {total: 42, note: '"><img src=x onerror=alert(1)>'};
                return new Response(JSON.stringify(detail), {status: 200, headers: {'Content-Type': 'application/json'}});
            };
            """;

    /** Records the URL of every request the page's scripts make, in {@code window.runlaneRequests}. */
    private static final String RECORD_REQUESTS = """
            window.runlaneRequests = [];
            const recorded = window.fetch;
            window.fetch = (...args) => {
                window.runlaneRequests.push(String(args[0]));
                return recorded(...args);
            };
            """;

    /** How many requests so far matched the pattern. */
    private long requests(String pattern) {
        return ((Number) ((org.openqa.selenium.JavascriptExecutor) browser.driver())
                        .executeScript(
                                "return window.runlaneRequests.filter(url => new RegExp(arguments[0]).test(url)).length;",
                                pattern))
                .longValue();
    }

    private List<WebElement> rows(String selector) {
        return browser.driver().findElements(By.cssSelector(selector));
    }

    /** The ids of the listed runs, read in one script so that an auto-refresh cannot replace rows midway. */
    @SuppressWarnings("unchecked")
    private List<String> runIds() {
        return (List<String>) ((org.openqa.selenium.JavascriptExecutor) browser.driver())
                .executeScript("return [...document.querySelectorAll('tr.run-row')].map(row => row.dataset.runId);");
    }

    /**
     * Runs for the pages to show: finished runs of each outcome, spread over the last hour so the throughput chart has
     * history, and runs waiting on the {@code reports} queue.
     */
    private void seed() {
        if (seeded) {
            return;
        }
        seeded = true;
        List<UUID> finished = new java.util.ArrayList<>();
        for (int i = 0; i < 36; i++) {
            finished.add(runlane.trigger("orders.confirm", Payload.of("order " + (1000 + i)))
                    .runId());
        }
        for (int i = 0; i < 5; i++) {
            finished.add(runlane.trigger("invoices.send", Payload.of("invoice " + (2000 + i)))
                    .runId());
        }
        for (int i = 0; i < 7; i++) {
            runlane.trigger("reports.build", new Payload("report " + i, "report-2026-11-" + (10 + i)));
        }
        UUID withdrawn =
                runlane.trigger("reports.build", Payload.of("withdrawn")).runId();
        runlane.runs().cancel(withdrawn, "duplicate request");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> finished.stream()
                        .allMatch(id ->
                                runlane.runs().get(id).orElseThrow().status().isTerminal()));
        String schema = properties.getSchema().getName();
        jdbc.update("""
                WITH shifted AS (
                    SELECT id, make_interval(mins => (abs(hashtext(id::text)) %% 55)) AS age
                    FROM %1$s.runs WHERE finished_at IS NOT NULL
                ), runs AS (
                    UPDATE %1$s.runs r SET created_at = r.created_at - s.age, updated_at = r.updated_at - s.age,
                                           run_at = r.run_at - s.age, finished_at = r.finished_at - s.age
                    FROM shifted s WHERE r.id = s.id
                )
                UPDATE %1$s.run_events e SET created_at = e.created_at - s.age FROM shifted s WHERE e.run_id = s.id
                """.formatted(schema));
    }
}

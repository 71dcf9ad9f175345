package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.RunAttempt;
import io.runlane.RunEvent;
import io.runlane.RunSignal;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.RunlaneTemplate;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.console.ConsoleTestApplication.Entries;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.context.WebApplicationContext;

/**
 * A run's detail in the console API is bounded however long its history is (S-CO-10, issue 25 item 12): a running run
 * with thousands of steps, events and signals answers its newest 50 of each with the totals and a cursor, and the
 * list endpoints page back through every item exactly once, in the order the engine's own reads list them.
 */
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        properties = {"runlane.console.enabled=true", "runlane.console.show-values=always"})
class ConsoleRunHistoryPagingIntegrationTests {

    private static final String API = "/runlane/api";

    private static final int STEPS = 3_000;

    private static final int SIGNALS = 2_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_history");
    }

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private JdbcTemplate jdbc;

    @Autowired
    private TransactionTemplate transactions;

    @Autowired
    private RunlaneProperties properties;

    private MockMvc mvc;

    private UUID ledger;

    @BeforeAll
    void aRunWithThousandsOfStepsAndSignals() {
        mvc = MockMvcBuilders.webAppContextSetup(context).build();
        ledger = runlane.trigger("ledger.replay", new Entries(STEPS, "entry")).runId();
        String schema = properties.getSchema().getName();
        await().atMost(Duration.ofMinutes(3))
                .until(() -> jdbc.queryForObject(
                                "SELECT count(*) FROM " + schema + ".run_steps WHERE run_id = ?", Long.class, ledger)
                        == STEPS);
        transactions.executeWithoutResult(status -> {
            for (int i = 1; i <= SIGNALS; i++) {
                runlane.signals().send(ledger, "tick-" + (i % 4), Map.of("n", i));
            }
        });
        assertThat(runlane.runs().get(ledger).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    @AfterAll
    void cancelTheRun() {
        runlane.runs().cancel(ledger, "test over");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(ledger).orElseThrow().status().isTerminal());
    }

    @Test
    @DisplayName("S-CO-10: the detail of a run with 3,000 steps and 2,000 signals holds 50 of each list, the totals"
            + " and cursors, in under 100 KB")
    void theDetailHoldsTheNewestFiftyOfEachListWithTotalsAndCursors() throws Exception {
        byte[] body = mvc.perform(get(API + "/runs/{id}", ledger))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.steps.items", hasSize(50)))
                .andExpect(jsonPath("$.steps.total").value(STEPS))
                .andExpect(jsonPath("$.steps.totalCapped").value(false))
                .andExpect(jsonPath("$.steps.nextCursor").isString())
                .andExpect(jsonPath("$.signals.items", hasSize(50)))
                .andExpect(jsonPath("$.signals.total").value(SIGNALS))
                .andExpect(jsonPath("$.signals.nextCursor").isString())
                .andExpect(jsonPath("$.events.items", hasSize(50)))
                .andExpect(jsonPath("$.events.total").value(STEPS + 2))
                .andExpect(jsonPath("$.events.nextCursor").isString())
                .andExpect(jsonPath("$.attempts.items", hasSize(1)))
                .andExpect(jsonPath("$.attempts.total").value(1))
                .andExpect(jsonPath("$.attempts.nextCursor").value(nullValue()))
                .andExpect(jsonPath("$.attempts.items[0].attempt").value(1))
                .andExpect(jsonPath("$.attempts.items[0].endedAt").value(nullValue()))
                .andExpect(jsonPath("$.steps.items[0].name").value("entry 0"))
                .andExpect(jsonPath("$.steps.items[0].resultJson").value(STEPS))
                .andExpect(jsonPath("$.signals.items[0].payloadJson.n").value(SIGNALS))
                .andExpect(jsonPath("$.events.items[0].sequence").value(STEPS + 2))
                .andReturn()
                .getResponse()
                .getContentAsByteArray();

        assertThat(body.length).isLessThan(100_000);
    }

    @Test
    @DisplayName("S-CO-10, S-ST-6: paging the steps returns each step once, latest completion first")
    void pagingTheStepsReturnsEveryStepOnceNewestFirst() throws Exception {
        List<String> paged =
                pageThrough("steps", step -> JsonPath.read(step, "$.name") + "#" + JsonPath.read(step, "$.occurrence"));

        List<String> listed =
                reversed(runlane.runs().steps(ledger), (RunStep step) -> step.name() + "#" + step.occurrence());
        assertThat(listed).hasSize(STEPS);
        assertThat(paged).containsExactlyElementsOf(listed);
    }

    @Test
    @DisplayName("S-CO-10, S-SG-5: paging the signals returns each signal once, newest first")
    void pagingTheSignalsReturnsEverySignalOnceNewestFirst() throws Exception {
        List<String> paged = pageThrough("signals", signal -> JsonPath.read(signal, "$.id"));

        List<String> listed = reversed(
                runlane.runs().signals(ledger),
                (RunSignal signal) -> signal.id().toString());
        assertThat(listed).hasSize(SIGNALS);
        assertThat(paged).containsExactlyElementsOf(listed);
    }

    @Test
    @DisplayName("S-CO-10, S-RL-2: paging the events returns each event once, newest first, down to the creation")
    void pagingTheEventsReturnsEveryEventOnceNewestFirst() throws Exception {
        List<String> paged = pageThrough(
                "events", event -> JsonPath.read(event, "$.sequence") + " " + JsonPath.read(event, "$.type"));

        List<String> listed =
                reversed(runlane.runs().events(ledger), (RunEvent event) -> event.sequence() + " " + event.type());
        assertThat(paged).hasSize(STEPS + 2).containsExactlyElementsOf(listed).endsWith("1 CREATED");
    }

    @Test
    @DisplayName("S-CO-10, S-EX-17: paging the attempts numbers them as the engine does, skipping handed-back claims"
            + " and the steps between claims")
    void pagingTheAttemptsMatchesTheEnginesAttempts() throws Exception {
        UUID run = runWithManyAttempts(40);

        List<String> paged = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var request = get(API + "/runs/{id}/attempts", run).param("limit", "7");
            String body = mvc.perform(cursor == null ? request : request.param("cursor", cursor))
                    .andExpect(status().isOk())
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
            List<Map<String, Object>> items = JsonPath.read(body, "$.items");
            assertThat(items).hasSizeLessThanOrEqualTo(7);
            items.forEach(attempt -> paged.add(describe(attempt)));
            cursor = JsonPath.read(body, "$.nextCursor");
            pages++;
        } while (cursor != null);

        List<RunAttempt> attempts = runlane.runs().attempts(run);
        assertThat(attempts).hasSize(40);
        assertThat(paged)
                .containsExactlyElementsOf(reversed(attempts, ConsoleRunHistoryPagingIntegrationTests::describe));
        assertThat(pages).isGreaterThan(5);
        mvc.perform(get(API + "/runs/{id}", run))
                .andExpect(jsonPath("$.attempts.total").value(40))
                .andExpect(jsonPath("$.attempts.items", hasSize(40)))
                .andExpect(jsonPath("$.attempts.items[0].attempt").value(40))
                .andExpect(jsonPath("$.attempts.items[39].attempt").value(1));
    }

    @Test
    @DisplayName("S-CO-10: a list's limit is clamped to 1..200, and a foreign or malformed cursor answers 400")
    void limitsAreClampedAndForeignCursorsRefused() throws Exception {
        mvc.perform(get(API + "/runs/{id}/steps", ledger).param("limit", "5000"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.items", hasSize(200)));
        mvc.perform(get(API + "/runs/{id}/signals", ledger).param("limit", "0"))
                .andExpect(jsonPath("$.items", hasSize(1)));
        mvc.perform(get(API + "/runs/{id}/events", ledger)).andExpect(jsonPath("$.items", hasSize(50)));
        mvc.perform(get(API + "/runs/{id}/steps", ledger).param("limit", "many"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));
        String stepsCursor = JsonPath.read(
                mvc.perform(get(API + "/runs/{id}", ledger))
                        .andReturn()
                        .getResponse()
                        .getContentAsString(),
                "$.steps.nextCursor");
        mvc.perform(get(API + "/runs/{id}/signals", ledger).param("cursor", stepsCursor))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));
        mvc.perform(get(API + "/runs/{id}/events", ledger).param("cursor", "not a cursor"))
                .andExpect(status().isBadRequest());
        mvc.perform(get(API + "/runs/{id}/steps", UUID.randomUUID()))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("run_not_found"));
    }

    /** Every item of a list: the detail's newest page, then pages of the list endpoint at the largest limit. */
    private List<String> pageThrough(String list, Function<Object, String> describe) throws Exception {
        String detail = mvc.perform(get(API + "/runs/{id}", ledger))
                .andReturn()
                .getResponse()
                .getContentAsString();
        List<Object> first = JsonPath.read(detail, "$." + list + ".items");
        List<String> items = new ArrayList<>(first.stream().map(describe).toList());
        String cursor = JsonPath.read(detail, "$." + list + ".nextCursor");
        while (cursor != null) {
            String body = mvc.perform(get(API + "/runs/{id}/" + list, ledger)
                            .param("cursor", cursor)
                            .param("limit", "1000"))
                    .andExpect(status().isOk())
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
            List<Object> page = JsonPath.read(body, "$.items");
            assertThat(page).isNotEmpty().hasSizeLessThanOrEqualTo(200);
            page.stream().map(describe).forEach(items::add);
            cursor = JsonPath.read(body, "$.nextCursor");
        }
        return items;
    }

    /**
     * A waiting run whose events record {@code counted} attempts, each with steps between claim and end, and every
     * fifth claim handed back before its attempt started (S-EX-17), as a run would have them after many retries.
     */
    private UUID runWithManyAttempts(int counted) {
        UUID run = runlane.trigger("reports.build", Payload.of("retried")).runId();
        String schema = properties.getSchema().getName();
        List<Object[]> events = new ArrayList<>();
        int seq = 1;
        for (int attempt = 1; attempt <= counted; attempt++) {
            if (attempt % 5 == 0) {
                events.add(new Object[] {run, ++seq, "CLAIMED", "RUNNING", "worker-b", "attempt " + attempt});
                events.add(new Object[] {run, ++seq, "HANDED_BACK", "QUEUED", "worker-b", "never started"});
            }
            events.add(new Object[] {run, ++seq, "CLAIMED", "RUNNING", "worker-a", "attempt " + attempt});
            for (int step = 1; step <= 3; step++) {
                events.add(new Object[] {run, ++seq, "STEP_COMPLETED", "RUNNING", "worker-a", "step " + step});
            }
            if (attempt == 7) {
                events.add(new Object[] {run, ++seq, "CANCELLATION_REQUESTED", "CANCELLATION_REQUESTED", "ops", null});
            }
            events.add(new Object[] {run, ++seq, "RETRY_SCHEDULED", "RETRYING", "worker-a", "failure " + attempt});
        }
        jdbc.batchUpdate(
                "INSERT INTO " + schema + ".run_events (run_id, seq, type, status, created_at, actor, detail)"
                        + " VALUES (?, ?, ?, ?, statement_timestamp(), ?, ?)",
                events);
        jdbc.update("UPDATE " + schema + ".runs SET attempts = ?, last_event_seq = ? WHERE id = ?", counted, seq, run);
        return run;
    }

    private static String describe(RunAttempt attempt) {
        return attempt.attempt() + " " + attempt.worker() + " " + attempt.endedBy() + " " + attempt.detail();
    }

    private static String describe(Map<String, Object> attempt) {
        return attempt.get("attempt") + " " + attempt.get("worker") + " " + attempt.get("endedBy") + " "
                + attempt.get("detail");
    }

    private static <T> List<String> reversed(List<T> items, Function<T, String> describe) {
        List<String> described = new ArrayList<>(items.stream().map(describe).toList());
        Collections.reverse(described);
        return described;
    }
}

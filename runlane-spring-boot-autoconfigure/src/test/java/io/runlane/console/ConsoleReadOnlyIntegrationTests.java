package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The console's JSON API in its default read-only mode, served under a configured path (S-CO-1, S-CO-2): overview,
 * run listing with filters, lookups and cursor paging, a run's detail with events and attempts, the schedules
 * placeholder, and writes refused with 403.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        properties = {
            "runlane.console.enabled=true",
            "runlane.console.show-values=always",
            "runlane.console.path=/ops/runlane/"
        })
class ConsoleReadOnlyIntegrationTests {

    private static final String API = "/ops/runlane/api";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_read_only");
    }

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RunlaneTemplate runlane;

    private MockMvc mvc;

    @BeforeEach
    void mvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context).build();
    }

    @Test
    @DisplayName("S-CO-1: runlane.console.path moves the page, its resources and the API")
    void thePathPropertyMovesTheConsole() throws Exception {
        mvc.perform(get("/ops/runlane"))
                .andExpect(status().isFound())
                .andExpect(header().string("Location", "runlane/"));
        mvc.perform(get("/ops/runlane/"))
                .andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith(MediaType.TEXT_HTML))
                .andExpect(header().string("Content-Security-Policy", containsString("script-src 'self'")))
                .andExpect(content().string(containsString("js/app.js")));
        mvc.perform(get("/ops/runlane/js/app.js")).andExpect(status().isOk());
        mvc.perform(get("/ops/runlane/console.css")).andExpect(status().isOk());
        mvc.perform(get("/runlane/")).andExpect(status().isNotFound());
        mvc.perform(get("/runlane/api/overview")).andExpect(status().isNotFound());
    }

    @Test
    void theInfoNamesTheAccessModeTasksQueuesAndStatuses() throws Exception {
        mvc.perform(get(API + "/console"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.access").value("read-only"))
                .andExpect(jsonPath("$.environment").value("default"))
                .andExpect(jsonPath("$.tasks[*].id", hasItem("reports.build")))
                .andExpect(jsonPath("$.queues", hasItem("reports")))
                .andExpect(jsonPath("$.statuses", hasItem("CANCELLED")))
                .andExpect(jsonPath("$.sources", hasItem("SCHEDULE")));
    }

    @Test
    @DisplayName("S-CO-27, S-OP-15: runs are filtered by priority range, failure message prefix and key prefixes, and"
            + " carry their priority")
    void runsAreFilteredByPriorityMessageAndKeyPrefixes() throws Exception {
        UUID urgent = runlane.trigger(
                        "reports.build",
                        new Payload("prio-urgent", "lookup-order-1"),
                        TriggerOptions.builder().priority(9).build())
                .runId();
        UUID low = runlane.trigger(
                        "reports.build",
                        new Payload("prio-low", "lookup-order-2"),
                        TriggerOptions.builder().priority(-9).build())
                .runId();
        UUID single = runlane.trigger(
                        "reports.build",
                        Payload.of("prio-single"),
                        TriggerOptions.builder().singletonKey("lookup-tenant_1").build())
                .runId();
        UUID failed = runlane.trigger("invoices.send", Payload.of("50%_off")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);

        mvc.perform(get(API + "/runs").param("minPriority", "9").param("maxPriority", "9"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.runs[*].id", contains(urgent.toString())))
                .andExpect(jsonPath("$.runs[0].priority").value(9));
        mvc.perform(get(API + "/runs").param("maxPriority", "-1").param("queue", "reports"))
                .andExpect(jsonPath("$.runs[*].id", contains(low.toString())));
        mvc.perform(get(API + "/runs").param("idempotencyKeyPrefix", "lookup-order-"))
                .andExpect(jsonPath("$.runs[*].id", contains(low.toString(), urgent.toString())));
        mvc.perform(get(API + "/runs").param("idempotencyKeyPrefix", "lookup-order-1"))
                .andExpect(jsonPath("$.runs[*].id", contains(urgent.toString())));
        mvc.perform(get(API + "/runs").param("singletonKeyPrefix", "lookup-tenant_"))
                .andExpect(jsonPath("$.runs[*].id", contains(single.toString())));
        mvc.perform(get(API + "/runs").param("singletonKeyPrefix", "lookup-tenant%"))
                .andExpect(jsonPath("$.runs", hasSize(0)));
        mvc.perform(get(API + "/runs").param("failureMessagePrefix", "refused 50%_"))
                .andExpect(jsonPath("$.runs[*].id", contains(failed.toString())));
        mvc.perform(get(API + "/runs").param("failureMessagePrefix", "refused 5_%"))
                .andExpect(jsonPath("$.runs", hasSize(0)));
    }

    @Test
    @DisplayName("S-CO-27, S-OP-15: a bad priority bound or prefix answers 400 naming the field")
    void badPriorityOrPrefixAnswers400() throws Exception {
        String[][] bad = {
            {"minPriority", "high", "request_invalid"},
            {"minPriority", "101", "configuration_invalid"},
            {"maxPriority", "-101", "configuration_invalid"},
            {"failureMessagePrefix", "   ", "configuration_invalid"},
            {"failureMessagePrefix", "m".repeat(1001), "configuration_invalid"},
            {"idempotencyKeyPrefix", "a:b", "invalid_key"},
            {"idempotencyKeyPrefix", " ", "invalid_key"},
            {"singletonKeyPrefix", "k".repeat(256), "invalid_key"},
        };
        for (String[] parameter : bad) {
            mvc.perform(get(API + "/runs").param(parameter[0], parameter[1]))
                    .andExpect(status().isBadRequest())
                    .andExpect(jsonPath("$.code").value(parameter[2]))
                    .andExpect(jsonPath("$.message", containsString(parameter[0])));
        }
        mvc.perform(get(API + "/runs").param("minPriority", "5").param("maxPriority", "4"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("configuration_invalid"))
                .andExpect(jsonPath("$.message", containsString("maxPriority")));
    }

    @Test
    @DisplayName("S-CO-23, S-OP-14: runs are filtered by source and by schedule id; a bad source answers 400")
    void runsAreFilteredBySourceAndSchedule() throws Exception {
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport("source-report"));
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport("source-other"));
        UUID scheduled = runlane.schedules().triggerNow("source-report").runId();
        UUID other = runlane.schedules().triggerNow("source-other").runId();
        // The schedules go, their runs stay: the schedules page test counts the schedules of this context.
        runlane.schedules().delete("source-report");
        runlane.schedules().delete("source-other");
        UUID triggered = runlane.trigger("reports.build", Payload.of("source")).runId();

        mvc.perform(get(API + "/runs").param("source", "schedule").param("limit", "500"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.runs[*].id", hasItem(scheduled.toString())))
                .andExpect(jsonPath("$.runs[*].id", hasItem(other.toString())))
                .andExpect(jsonPath("$.runs[*].id", not(hasItem(triggered.toString()))))
                .andExpect(jsonPath("$.runs[*].scheduleId", everyItem(notNullValue())));
        mvc.perform(get(API + "/runs").param("source", "TRIGGER").param("limit", "500"))
                .andExpect(jsonPath("$.runs[*].id", hasItem(triggered.toString())))
                .andExpect(jsonPath("$.runs[*].id", not(hasItem(scheduled.toString()))));
        mvc.perform(get(API + "/runs").param("source", "rerun,retry,fork").param("task", "reports.build"))
                .andExpect(jsonPath("$.runs", hasSize(0)));
        mvc.perform(get(API + "/runs").param("schedule", "source-report"))
                .andExpect(jsonPath("$.runs[*].id", contains(scheduled.toString())))
                .andExpect(jsonPath("$.runs[0].scheduleId").value("source-report"));
        mvc.perform(get(API + "/runs").param("source", "cron"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));
        mvc.perform(get(API + "/runs").param("schedule", "a:b"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("invalid_key"))
                .andExpect(jsonPath("$.message", containsString("scheduleId")));
    }

    @Test
    void theOverviewCountsActiveRunsPerQueueAndFinishedRunsOfTheLastHour() throws Exception {
        runlane.trigger("reports.build", Payload.of("overview"));
        UUID succeeded =
                runlane.trigger("orders.confirm", Payload.of("overview")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(succeeded).orElseThrow().status() == RunStatus.SUCCEEDED);

        String body = mvc.perform(get(API + "/overview"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.access").value("read-only"))
                .andExpect(jsonPath("$.queues[?(@.name == 'reports')].oldestDueAgeMillis", hasItem(notNullValue())))
                .andExpect(jsonPath("$.throughput.intervalMinutes").value(5))
                .andExpect(jsonPath("$.throughput.intervals", hasSize(12)))
                .andExpect(jsonPath("$.worker.running").value(true))
                .andExpect(jsonPath("$.schedules.overdue").isArray())
                .andReturn()
                .getResponse()
                .getContentAsString();
        assertThat(JsonPath.<List<Number>>read(body, "$.queues[?(@.name == 'reports')].counts.QUEUED"))
                .singleElement()
                .satisfies(value -> assertThat(value.longValue()).isPositive());
        assertThat(JsonPath.<List<Number>>read(body, "$.queues[?(@.name == 'reports')].due"))
                .singleElement()
                .satisfies(value -> assertThat(value.longValue()).isPositive());
        assertThat(JsonPath.<List<Number>>read(body, "$.throughput.intervals[*].succeeded"))
                .anySatisfy(value -> assertThat(value.longValue()).isPositive());
    }

    @Test
    void theOverviewNamesTheWorkersHoldingLeases() throws Exception {
        UUID held = runlane.trigger("exports.generate", Payload.of("lease")).runId();
        try {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.runs().get(held).orElseThrow().status() == RunStatus.RUNNING);

            String body = mvc.perform(get(API + "/overview"))
                    .andExpect(status().isOk())
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
            String workerId = JsonPath.read(body, "$.worker.id");
            assertThat(JsonPath.<List<Number>>read(body, "$.leases[?(@.worker == '" + workerId + "')].runs"))
                    .singleElement()
                    .satisfies(runs -> assertThat(runs.longValue()).isOne());
            assertThat(JsonPath.<List<Number>>read(body, "$.queues[?(@.name == 'default')].counts.RUNNING"))
                    .singleElement()
                    .satisfies(runs -> assertThat(runs.longValue()).isOne());
        } finally {
            runlane.runs().cancel(held, "test over");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> runlane.runs().get(held).orElseThrow().status().isTerminal());
        }
    }

    @Test
    void runsAreFilteredByStatusTaskQueueAndCreationTime() throws Exception {
        Instant before = Instant.now().minusSeconds(60);
        UUID parked = runlane.trigger("reports.build", Payload.of("filters")).runId();

        mvc.perform(get(API + "/runs").param("status", "QUEUED").param("task", "reports.build"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.runs[*].id", hasItem(parked.toString())))
                .andExpect(jsonPath("$.runs[*].status", everyItem(is("QUEUED"))));
        mvc.perform(get(API + "/runs").param("queue", "reports").param("createdFrom", before.toString()))
                .andExpect(jsonPath("$.runs[*].id", hasItem(parked.toString())));
        mvc.perform(get(API + "/runs").param("status", "SUCCEEDED,FAILED").param("task", "reports.build"))
                .andExpect(jsonPath("$.runs", hasSize(0)));
        mvc.perform(get(API + "/runs").param("task", "reports.build").param("createdTo", before.toString()))
                .andExpect(jsonPath("$.runs", hasSize(0)));
        mvc.perform(get(API + "/runs").param("status", "NOT_A_STATUS"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));
    }

    @Test
    void cursorPagingReturnsEveryRunOnce() throws Exception {
        Instant from =
                runlane.trigger("reports.build", Payload.of("page 0")).run().createdAt();
        for (int i = 1; i < 5; i++) {
            runlane.trigger("reports.build", Payload.of("page " + i));
        }
        String first = mvc.perform(get(API + "/runs")
                        .param("task", "reports.build")
                        .param("createdFrom", from.toString())
                        .param("limit", "3"))
                .andExpect(jsonPath("$.runs", hasSize(3)))
                .andExpect(jsonPath("$.nextCursor").value(notNullValue()))
                .andReturn()
                .getResponse()
                .getContentAsString();
        String cursor = JsonPath.read(first, "$.nextCursor");

        mvc.perform(get(API + "/runs")
                        .param("task", "reports.build")
                        .param("createdFrom", from.toString())
                        .param("limit", "3")
                        .param("cursor", cursor))
                .andExpect(jsonPath("$.runs", hasSize(2)))
                .andExpect(jsonPath("$.nextCursor").value(nullValue()));
    }

    @Test
    void runsAreLookedUpByIdempotencyKeyAndById() throws Exception {
        UUID keyed = runlane.trigger("reports.build", new Payload("lookup", "order-42"))
                .runId();

        mvc.perform(get(API + "/runs").param("idempotencyKey", "order-42"))
                .andExpect(jsonPath("$.runs[*].id", hasItem(keyed.toString())))
                .andExpect(jsonPath("$.runs", hasSize(1)));
        mvc.perform(get(API + "/runs/{id}", keyed))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.idempotencyKey").value("order-42"));
        mvc.perform(get(API + "/runs/{id}", UUID.randomUUID()))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("run_not_found"));
        mvc.perform(get(API + "/runs/not-a-uuid")).andExpect(status().isBadRequest());
    }

    @Test
    void aRunsDetailHasItsPayloadEventsAttemptsAndFailure() throws Exception {
        UUID failed = runlane.trigger("invoices.send", Payload.of("detail")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);

        mvc.perform(get(API + "/runs/{id}", failed))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.status").value("FAILED"))
                .andExpect(jsonPath("$.run.payloadJson.name").value("detail"))
                .andExpect(jsonPath("$.run.failure.message").value("refused detail"))
                .andExpect(jsonPath("$.events.items[0].type").value("FAILED"))
                .andExpect(jsonPath("$.events.items[-1].type").value("CREATED"))
                .andExpect(jsonPath("$.attempts.items", hasSize(1)))
                .andExpect(jsonPath("$.attempts.items[0].endedAt").value(notNullValue()))
                .andExpect(jsonPath("$.actions.retry").value(false))
                .andExpect(jsonPath("$.actions.rerun").value(false))
                .andExpect(jsonPath("$.actions.resume").value(false));
    }

    @Test
    @DisplayName("S-DB-1: a pending debounced run's detail shows its key, its fold count and when it starts")
    void aPendingDebouncedRunShowsItsFoldsAndStart() throws Exception {
        String key = "console-" + UUID.randomUUID();
        TriggerOptions options = TriggerOptions.builder()
                .debounceKey(key)
                .debounce(Duration.ofHours(1))
                .build();
        UUID pending = runlane.trigger("reports.build", Payload.of("debounced 1"), options)
                .runId();
        runlane.trigger("reports.build", Payload.of("debounced 2"), options);
        Run folded = runlane.trigger("reports.build", Payload.of("debounced 3"), options)
                .run();

        mvc.perform(get(API + "/runs/{id}", pending))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.run.debounceKey").value(key))
                .andExpect(jsonPath("$.debounce.key").value(key))
                .andExpect(jsonPath("$.debounce.folds").value(2))
                .andExpect(jsonPath("$.debounce.startsAt").value(folded.runAt().toString()))
                .andExpect(jsonPath("$.events.items[0].type").value("DEBOUNCED"));
        UUID plain =
                runlane.trigger("reports.build", Payload.of("not debounced")).runId();
        mvc.perform(get(API + "/runs/{id}", plain))
                .andExpect(jsonPath("$.debounce").doesNotExist());
    }

    @Test
    void aRunsDetailHasItsStepsAndResult() throws Exception {
        UUID quote =
                runlane.trigger("quotes.compute", new Payload("quote 9", "q-9")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(quote).orElseThrow().status() == RunStatus.SUCCEEDED);

        mvc.perform(get(API + "/runs/{id}", quote))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.steps.items[*].name", org.hamcrest.Matchers.contains("label", "fetch-prices")))
                .andExpect(jsonPath("$.steps.items[1].resultJson").value(40))
                .andExpect(jsonPath("$.steps.items[0].resultJson").value("quote 9"))
                .andExpect(jsonPath("$.run.resultJson.total").value(42))
                .andExpect(jsonPath("$.run.resultJson.note").value("quote 9 / q-9"));
    }

    @Test
    @DisplayName("S-CO-1, S-SG-5: a run's detail lists its signals with their payloads and consumption")
    void aRunsDetailHasItsSignals() throws Exception {
        UUID waiting = runlane.trigger(
                        "invoices.send",
                        Payload.of("signalled"),
                        TriggerOptions.builder().delay(Duration.ofHours(1)).build())
                .runId();
        runlane.signals().send(waiting, "approved", Map.of("by", "ops"), "approval-1");

        mvc.perform(get(API + "/runs/{id}", waiting))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.signals.items", hasSize(1)))
                .andExpect(jsonPath("$.signals.items[0].name").value("approved"))
                .andExpect(jsonPath("$.signals.items[0].payloadJson.by").value("ops"))
                .andExpect(jsonPath("$.signals.items[0].deduplicationKey").value("approval-1"))
                .andExpect(jsonPath("$.signals.items[0].consumedAt").value(org.hamcrest.Matchers.nullValue()));
    }

    @Test
    void schedulesAreListedWithoutActions() throws Exception {
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport("read-only-report"));

        mvc.perform(get(API + "/schedules"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.schedules[?(@.id == 'read-only-report')].taskId", hasItem("reports.build")))
                .andExpect(jsonPath("$.schedules[?(@.id == 'read-only-report')].expression", hasItem("0 0 2 * * *")))
                .andExpect(jsonPath("$.schedules[?(@.id == 'read-only-report')].nextFireAt", hasItem(notNullValue())))
                .andExpect(jsonPath("$.schedules[?(@.id == 'read-only-report')].actions.pause", hasItem(false)));
        mvc.perform(get(API + "/overview"))
                .andExpect(jsonPath("$.schedules.total").value(1))
                .andExpect(jsonPath("$.schedules.overdue", hasSize(0)));
        mvc.perform(post(API + "/schedules/read-only-report/pause")
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{}"))
                .andExpect(status().isForbidden());

        assertThat(runlane.schedules().get("read-only-report").orElseThrow().paused())
                .isFalse();
    }

    @Test
    @DisplayName("S-CO-2: a read-only console refuses every write with 403 and changes nothing")
    void aReadOnlyConsoleRefusesWrites() throws Exception {
        UUID parked = runlane.trigger("reports.build", Payload.of("read-only")).runId();

        mvc.perform(post(API + "/runs/{id}/cancel", parked)
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"reason\":\"no\"}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_read_only"));
        mvc.perform(post(API + "/idempotency-keys/reset")
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"taskId\":\"reports.build\",\"key\":\"k\"}"))
                .andExpect(status().isForbidden());

        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-CO-25, S-CO-5: a read-only console refuses a trigger of a task with 403 and creates no run")
    void aReadOnlyConsoleRefusesATrigger() throws Exception {
        RunQuery reports = RunQuery.builder()
                .taskIds("reports.build")
                .statuses(RunStatus.values())
                .limit(200)
                .build();
        int before = runlane.runs().list(reports).items().size();

        mvc.perform(post(API + "/tasks/{id}/trigger", "reports.build")
                        .header("X-Runlane-Console", "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"payloadText\": \"{\\\"name\\\": \\\"x\\\", \\\"key\\\": \\\"\\\"}\"}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.code").value("console_read_only"));

        assertThat(runlane.runs().list(reports).items()).hasSize(before);
    }

    @Test
    @DisplayName("S-RV-5: a read-only console offers no fork and refuses fork, resume-all and cancel-all with 403")
    void aReadOnlyConsoleRefusesForksAndBulkActions() throws Exception {
        UUID failed =
                runlane.trigger("checkout.place", Payload.of("read-only fork")).runId();
        UUID parked =
                runlane.trigger("reports.build", Payload.of("read-only bulk")).runId();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(failed).orElseThrow().status() == RunStatus.FAILED);
        mvc.perform(get(API + "/runs/{id}", failed))
                .andExpect(jsonPath("$.steps.total").value(2))
                .andExpect(jsonPath("$.actions.fork").value(false));

        for (String path : List.of("/runs/" + failed + "/fork", "/runs/resume-all", "/runs/cancel-all")) {
            mvc.perform(post(API + path)
                            .header("X-Runlane-Console", "1")
                            .contentType(MediaType.APPLICATION_JSON)
                            .content("{\"fromStep\":\"reserve\",\"taskIds\":[\"reports.build\"]}"))
                    .andExpect(status().isForbidden())
                    .andExpect(jsonPath("$.code").value("console_read_only"));
        }

        assertThat(runlane.runs().get(parked).orElseThrow().status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.runs()
                        .list(RunQuery.builder().taskIds("checkout.place").build())
                        .items())
                .extracting(Run::id)
                .containsExactly(failed);
    }
}

package io.runlane.console;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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
import org.springframework.web.context.WebApplicationContext;

/**
 * The console's {@code api/tasks} and {@code api/charts} in read-only mode (S-CO-20, S-CO-21) on runs written with
 * known durations: counts per status, success rates and {@code percentile_cont} percentiles per range, the series'
 * intervals, the declaration of a task with every policy, and refusals of bad parameters.
 */
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleTasksIntegrationTests.BookShipment.class},
        properties = "runlane.console.enabled=true")
class ConsoleTasksIntegrationTests {

    private static final String API = "/runlane/api";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_tasks");
    }

    /** Every policy a task can declare, so that the catalogue shows each. */
    @Task(
            id = "shipments.book",
            queue = "reports",
            maxAttempts = 5,
            backoff = "2s",
            backoffMultiplier = 2,
            maxBackoff = "1m",
            timeout = "30s",
            idempotencyKeyTtl = "24h",
            onSingletonConflict = SingletonConflictPolicy.RETURN_OWNER,
            priority = 3,
            debounce = "5s",
            debounceMaxWait = "1m",
            rateLimit = 10,
            rateLimitPeriod = "1m",
            throttle = 2,
            throttlePeriod = "1s",
            noRetryFor = IllegalArgumentException.class)
    static class BookShipment implements TaskHandler<Payload> {

        @Override
        public String singletonKey(Payload payload) {
            return payload.name();
        }

        @Override
        public String throttleKey(Payload payload) {
            return payload.name();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private JdbcTemplate jdbc;

    @Autowired
    private RunlaneProperties properties;

    private MockMvc mvc;

    /**
     * {@code reports.build} (queue {@code reports}): four succeeded runs of 1, 2, 3 and 4 s and a failed one of 10 s
     * finished at the start of the current minute, a succeeded one of 100 s 2 hours before the start of the current
     * 4-hour interval (2 to 6 hours ago), one 10 days ago; a cancelled {@code invoices.send} run of 500 ms 2 days ago;
     * one queued {@code reports.build} run. The two recent moments are read from the database's clock and aligned on
     * the epoch as the series are (S-CO-21), so the recent runs share one interval of every series, and the run of 2 to
     * 6 hours ago falls in the previous 4-hour interval, wherever the clock is in the current one.
     */
    @BeforeAll
    void seed() {
        String schema = properties.getSchema().getName();
        Map<String, Object> moments = jdbc.queryForMap("""
                SELECT date_trunc('minute', now()) AS recent,
                       to_timestamp(floor(extract(epoch FROM now()) / 14400) * 14400) - interval '2 hours' AS earlier,
                       now() - interval '2 days' AS two_days_ago,
                       now() - interval '10 days' AS ten_days_ago
                """);
        String insert = """
                INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, max_attempts, run_at,
                                     created_at, updated_at, finished_at, attempts)
                SELECT gen_random_uuid(), 'default', ?, ?, ?, '{}', 3, f, f - cast(? AS interval), f, f, 1
                FROM (SELECT cast(? AS timestamptz) AS f) finished
                """.formatted(schema);
        for (String duration : List.of("1 second", "2 seconds", "3 seconds", "4 seconds")) {
            jdbc.update(insert, "reports.build", "reports", "SUCCEEDED", duration, moments.get("recent"));
        }
        jdbc.update(insert, "reports.build", "reports", "FAILED", "10 seconds", moments.get("recent"));
        jdbc.update(insert, "reports.build", "reports", "SUCCEEDED", "100 seconds", moments.get("earlier"));
        jdbc.update(insert, "reports.build", "reports", "SUCCEEDED", "1 second", moments.get("ten_days_ago"));
        jdbc.update(insert, "invoices.send", "default", "CANCELLED", "500 milliseconds", moments.get("two_days_ago"));
        runlane.trigger("reports.build", Payload.of("queued"));
        runlane.schedules().upsert(ConsoleTestApplication.nightlyReport("nightly-report"));
    }

    @BeforeEach
    void mvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context).build();
    }

    @Test
    @DisplayName("S-CO-20: per task, runs by status, success rate and duration percentiles over the last hour")
    void theLastHourCountsTheRunsFinishedInIt() throws Exception {
        mvc.perform(get(API + "/tasks").param("range", "1h"))
                .andExpect(status().isOk())
                .andExpect(header().string("Cache-Control", "no-store"))
                .andExpect(jsonPath("$.range").value("1h"))
                .andExpect(jsonPath("$.rangeMillis").value(3_600_000))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.finished.SUCCEEDED", contains(4)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.finished.FAILED", contains(1)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.finished.CANCELLED", contains(0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.finishedTotal", contains(5)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.active.QUEUED", contains(1)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.successRate", contains(0.8)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.p50Millis", contains(3000.0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.p95Millis", contains(8800.0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.finishedTotal", contains(0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.successRate", contains((Object) null)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.p50Millis", contains((Object) null)));
    }

    @Test
    @DisplayName("S-CO-20: 24 h and 7 d widen the range; runs older than the range are not counted")
    void widerRangesCountOlderRuns() throws Exception {
        mvc.perform(get(API + "/tasks").param("range", "24h"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.finishedTotal", contains(6)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.p50Millis", contains(3500.0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.p95Millis", contains(77500.0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.finishedTotal", contains(0)));
        mvc.perform(get(API + "/tasks").param("range", "7d"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].figures.finishedTotal", contains(6)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.finished.CANCELLED", contains(1)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.successRate", contains(0.0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'invoices.send')].figures.p95Millis", contains(500.0)));
        mvc.perform(get(API + "/tasks"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.range").value("24h"));
    }

    @Test
    @DisplayName("S-CO-20: the catalogue lists every declared task with its declaration and its schedules")
    void theCatalogueShowsEachDeclaration() throws Exception {
        String body = mvc.perform(get(API + "/tasks").param("range", "1h"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.tasks[*].id", hasSize(8)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].queue", contains("reports")))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].maxAttempts", contains(5)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].backoffMillis", contains(2000)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].backoffMultiplier", contains(2.0)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].maxBackoffMillis", contains(60_000)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].timeoutMillis", contains(30_000)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].idempotencyKeyTtl", contains("1d")))
                .andExpect(
                        jsonPath("$.tasks[?(@.id == 'shipments.book')].onSingletonConflict", contains("RETURN_OWNER")))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].priority", contains(3)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].debounce.periodMillis", contains(5000)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].debounce.maxWaitMillis", contains(60_000)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].debounce.mode", contains("LATEST")))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].rateLimit.limit", contains(10)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].rateLimit.periodMillis", contains(60_000)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].throttle.limit", contains(2)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'shipments.book')].throttle.periodMillis", contains(1000)))
                .andExpect(jsonPath(
                        "$.tasks[?(@.id == 'shipments.book')].noRetryFor[*]",
                        contains("java.lang.IllegalArgumentException")))
                .andExpect(jsonPath("$.tasks[?(@.id == 'orders.confirm')].debounce", contains((Object) null)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'orders.confirm')].rateLimit", contains((Object) null)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'orders.confirm')].backoffMillis", contains((Object) null)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'orders.confirm')].timeoutMillis", contains((Object) null)))
                .andExpect(jsonPath("$.tasks[?(@.id == 'reports.build')].schedules[*].id", contains("nightly-report")))
                .andExpect(jsonPath(
                        "$.tasks[?(@.id == 'reports.build')].schedules[*].expression", contains("0 0 2 * * *")))
                .andExpect(jsonPath("$.tasks[?(@.id == 'orders.confirm')].schedules[*]", empty()))
                .andReturn()
                .getResponse()
                .getContentAsString();
        Assertions.assertThat(keyResolvers(body, "shipments.book")).containsExactly("singletonKey", "throttleKey");
        Assertions.assertThat(keyResolvers(body, "orders.confirm")).containsExactly("idempotencyKey");
        Assertions.assertThat(keyResolvers(body, "exports.generate")).isEmpty();
        List<String> ids = JsonPath.read(body, "$.tasks[*].id");
        Assertions.assertThat(ids).isSorted();
    }

    @Test
    @DisplayName("S-CO-21: the last hour's series has one interval per minute, with the counts and percentiles of each")
    void theHourSeriesHasAMinutePerInterval() throws Exception {
        String body = mvc.perform(get(API + "/charts").param("range", "1h").param("task", "reports.build"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.range").value("1h"))
                .andExpect(jsonPath("$.bucketMillis").value(60_000))
                .andExpect(jsonPath("$.scope").value("task"))
                .andExpect(jsonPath("$.value").value("reports.build"))
                .andExpect(jsonPath("$.buckets", hasSize(61)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].finished", contains(5)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].failed", contains(1)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].p50Millis", contains(3000.0)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].p95Millis", contains(8800.0)))
                .andExpect(jsonPath("$.buckets[0].p50Millis").value(is((Object) null)))
                .andReturn()
                .getResponse()
                .getContentAsString();
        List<String> starts = JsonPath.read(body, "$.buckets[*].start");
        Assertions.assertThat(starts).isSorted().doesNotHaveDuplicates();
        Assertions.assertThat(starts.get(0)).endsWith(":00Z");
    }

    @Test
    @DisplayName("S-CO-21: 24 h and 7 d series, for all runs, one queue or one task")
    void seriesPerRangeAndScope() throws Exception {
        mvc.perform(get(API + "/charts").param("range", "24h").param("queue", "reports"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.bucketMillis").value(1_800_000))
                .andExpect(jsonPath("$.scope").value("queue"))
                .andExpect(jsonPath("$.buckets", hasSize(49)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].finished", contains(1, 5)));
        mvc.perform(get(API + "/charts").param("range", "7d"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.bucketMillis").value(14_400_000))
                .andExpect(jsonPath("$.scope").value("all"))
                .andExpect(jsonPath("$.buckets", hasSize(43)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].finished", contains(1, 1, 5)));
        mvc.perform(get(API + "/charts").param("range", "7d").param("queue", "default"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].finished", contains(1)))
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)].p50Millis", contains(500.0)));
        mvc.perform(get(API + "/charts").param("range", "1h").param("task", "orders.confirm"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.buckets[?(@.finished > 0)]", empty()));
    }

    @Test
    @DisplayName("S-CO-21: an unknown range, task or queue, or both a task and a queue, are refused")
    void badParametersAreRefused() throws Exception {
        mvc.perform(get(API + "/tasks").param("range", "30d"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"))
                .andExpect(jsonPath("$.message").value("range '30d' is not one of 1h, 24h, 7d"));
        mvc.perform(get(API + "/charts").param("range", "2h")).andExpect(status().isBadRequest());
        mvc.perform(get(API + "/charts").param("task", "reports.build").param("queue", "reports"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.code").value("request_invalid"));
        mvc.perform(get(API + "/charts").param("task", "<script>alert(1)</script>"))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("task_not_found"));
        mvc.perform(get(API + "/charts").param("queue", "nowhere"))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.code").value("queue_not_found"));
    }

    private static List<String> keyResolvers(String body, String taskId) {
        List<List<String>> resolvers = JsonPath.read(body, "$.tasks[?(@.id == '" + taskId + "')].keyResolvers");
        return resolvers.get(0);
    }
}

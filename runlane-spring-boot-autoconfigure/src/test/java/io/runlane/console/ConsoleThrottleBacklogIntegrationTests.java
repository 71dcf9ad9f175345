package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
import org.springframework.web.context.WebApplicationContext;

/**
 * The tasks page's throttled keys (S-TH-1, S-CO-20): per key of a throttled task, its runs waiting to start, its
 * attempt starts in the current window and when it may start again, from the database's clock. The task's queue is
 * not served by the test's worker, so its runs stay queued and the window holds exactly the starts written here.
 */
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleThrottleBacklogIntegrationTests.PrintLabel.class},
        properties = "runlane.console.enabled=true")
class ConsoleThrottleBacklogIntegrationTests {

    private static final String XSS_KEY = "<img src=x onerror=alert(1)>";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_throttle");
    }

    /** Two starts per hour and printer. */
    @Task(id = "labels.print", queue = "reports", throttle = 2, throttlePeriod = "1h")
    static class PrintLabel implements TaskHandler<Payload> {

        @Override
        public String throttleKey(Payload payload) {
            return payload.key();
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

    private OffsetDateTime now;

    /**
     * Printer {@code acme}: three queued runs, two starts 10 and 5 minutes ago and one 2 hours ago (outside the
     * window); printer {@link #XSS_KEY}: one queued run and one start 20 minutes ago; printer {@code idle}: a start and
     * no queued run.
     */
    @BeforeAll
    void seed() {
        for (int i = 0; i < 3; i++) {
            runlane.trigger("labels.print", new Payload("label-" + i, "acme"));
        }
        runlane.trigger("labels.print", new Payload("label-x", XSS_KEY));
        now = jdbc.queryForObject("SELECT now()", OffsetDateTime.class);
        start("acme", now.minusMinutes(10));
        start("acme", now.minusMinutes(5));
        start("acme", now.minusHours(2));
        start(XSS_KEY, now.minusMinutes(20));
        start("idle", now.minusMinutes(1));
    }

    private void start(String key, OffsetDateTime at) {
        jdbc.update(
                "INSERT INTO " + properties.getSchema().getName() + ".throttle_starts"
                        + " (run_id, fencing_token, environment, task_id, throttle_key, started_at)"
                        + " VALUES (?, 1, 'default', 'labels.print', ?, ?)",
                UUID.randomUUID(),
                key,
                at);
    }

    @Test
    @DisplayName("S-TH-1, S-CO-20: a throttled key's backlog, its starts in the window and its next free slot")
    void throttledKeysShowTheirBacklogAndNextFreeSlot() throws Exception {
        MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
        String body = mvc.perform(get("/runlane/api/tasks").param("range", "1h"))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
        List<Map<String, Object>> keys = JsonPath.read(body, "$.tasks[?(@.id == 'labels.print')].throttledKeys[*]");
        assertThat(keys).extracting(key -> key.get("key")).containsExactly("acme", XSS_KEY);
        Map<String, Object> acme = keys.get(0);
        assertThat(acme.get("waiting")).isEqualTo(3);
        assertThat(acme.get("startsInWindow")).isEqualTo(2);
        assertThat(Instant.parse((String) acme.get("nextFreeSlot")))
                .isCloseTo(now.minusMinutes(10).plusHours(1).toInstant(), within(1, ChronoUnit.MILLIS));
        Map<String, Object> other = keys.get(1);
        assertThat(other.get("waiting")).isEqualTo(1);
        assertThat(other.get("startsInWindow")).isEqualTo(1);
        assertThat(other.get("nextFreeSlot")).isNull();
        List<Object> unthrottled = JsonPath.read(body, "$.tasks[?(@.id == 'orders.confirm')].throttledKeys[*]");
        assertThat(unthrottled).isEmpty();
    }
}

package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * Attempts as the engine, the console API and the actuator tell them (S-EX-34, issue 32 items 1 and 2): waits and
 * releases spend no retry budget, so {@code spentAttempts} counts a run that waited for signals once, and the
 * attempts that resumed it are marked {@code resumption}; every ended attempt names the event that ended it, never a
 * signal consumption recorded while it ran; and {@code runs().attempts()}, the console's pages and the actuator list
 * the same attempts.
 */
@DirtiesContext
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleAttemptsIntegrationTests.Tasks.class},
        properties = {
            "runlane.console.enabled=true",
            "management.endpoints.web.exposure.include=runlane",
            "management.endpoint.runlane.show-values=always"
        })
class ConsoleAttemptsIntegrationTests {

    private static final String API = "/runlane/api";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_attempts");
    }

    /** The number of signals to wait for, one after the other. */
    public record Waits(int signals) {}

    /** Waits for {@code signals} signals named {@code approval-1}, {@code approval-2}, … in turn. */
    @Task(id = "approvals.collect")
    static class Collect implements TaskHandler<Waits> {

        @Override
        public void run(Waits waits, RunContext context) {
            for (int i = 1; i <= waits.signals(); i++) {
                context.awaitSignal("approval-" + i, String.class, Duration.ofHours(1));
            }
        }
    }

    /** Fails its first attempt and succeeds on the retry. */
    @Task(id = "approvals.flaky", maxAttempts = 3, backoff = "50ms")
    static class Flaky implements TaskHandler<Waits> {

        @Override
        public void run(Waits waits, RunContext context) {
            if (context.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    /** Runs until its cancellation is requested. */
    @Task(id = "approvals.hold")
    static class Hold implements TaskHandler<Waits> {

        @Override
        public void run(Waits waits, RunContext context) {
            while (!context.isCancellationRequested()) {
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import({Collect.class, Flaky.class, Hold.class})
    static class Tasks {}

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RunlaneTemplate runlane;

    @Autowired
    private JsonMapper json;

    private MockMvc mvc;

    @BeforeEach
    void mvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context).build();
    }

    @Test
    @DisplayName("S-EX-34, S-ST-10: a run that waited for one signal spent 1 of its attempts, waiting and after")
    void aRunThatWaitedOnceSpentOneAttempt() throws Exception {
        UUID run = runlane.trigger("approvals.collect", new Waits(1)).runId();
        Run waiting = awaitWaitingFor(run, 1);
        assertThat(waiting.attempts()).isEqualTo(1);
        assertThat(waiting.spentAttempts()).isEqualTo(1);

        runlane.signals().send(run, "approval-1", "yes");
        Run succeeded = awaitStatus(run, RunStatus.SUCCEEDED);

        assertThat(succeeded.attempts()).isEqualTo(2);
        assertThat(succeeded.spentAttempts()).isEqualTo(1);
        String detail = body(API + "/runs/" + run);
        assertThat((Integer) JsonPath.read(detail, "$.run.spentAttempts")).isEqualTo(1);
        assertThat((Integer) JsonPath.read(detail, "$.run.attempts")).isEqualTo(2);
        assertThat((Integer) JsonPath.read(detail, "$.run.maxAttempts")).isEqualTo(3);
        String listed = body(API + "/runs?task=approvals.collect");
        assertThat((List<Integer>) JsonPath.read(listed, "$.runs[?(@.id == '" + run + "')].spentAttempts"))
                .containsExactly(1);
        String actuator = body("/actuator/runlane/runs/" + run);
        assertThat((Integer) JsonPath.read(actuator, "$.run.spentAttempts")).isEqualTo(1);
    }

    @Test
    @DisplayName("S-EX-34, S-SG-4: an attempt that consumed a signal ends as the run did, not by the consumption;"
            + " the engine, the console and the actuator agree")
    void anAttemptThatConsumedASignalEndsAsTheRunDid() throws Exception {
        UUID run = runlane.trigger("approvals.collect", new Waits(1)).runId();
        awaitWaitingFor(run, 1);
        runlane.signals().send(run, "approval-1", "yes");
        awaitStatus(run, RunStatus.SUCCEEDED);

        List<RunAttempt> attempts = runlane.runs().attempts(run);

        assertThat(attempts)
                .extracting(RunAttempt::endedBy)
                .containsExactly(RunEventType.WAITING, RunEventType.SUCCEEDED);
        assertThat(attempts).extracting(RunAttempt::outcome).containsExactly(RunStatus.WAITING, RunStatus.SUCCEEDED);
        assertThat(attempts).extracting(RunAttempt::resumption).containsExactly(false, true);
        assertThat(attempts).allSatisfy(attempt -> assertThat(attempt.endedAt()).isNotNull());
        assertThat(attempts.get(0).detail()).startsWith("awaiting signal 'approval-1' until ");
        assertThat(consoleAttempts(run, 1)).isEqualTo(attempts);
        assertThat(consoleAttempts(run, 50)).isEqualTo(attempts);
        assertThat(actuatorAttempts(run)).isEqualTo(attempts);
    }

    @Test
    @DisplayName("S-EX-34, S-ST-10: five waits make six attempts of which one spent budget, five resumptions")
    void fiveWaitsStillSpendOneAttempt() throws Exception {
        UUID run = runlane.trigger("approvals.collect", new Waits(5)).runId();
        for (int i = 1; i <= 5; i++) {
            Run waiting = awaitWaitingFor(run, i);
            assertThat(waiting.spentAttempts()).isEqualTo(1);
            runlane.signals().send(run, "approval-" + i, "yes " + i);
        }
        Run succeeded = awaitStatus(run, RunStatus.SUCCEEDED);

        assertThat(succeeded.attempts()).isEqualTo(6);
        assertThat(succeeded.spentAttempts()).isEqualTo(1);
        List<RunAttempt> attempts = runlane.runs().attempts(run);
        assertThat(attempts).extracting(RunAttempt::attempt).containsExactly(1, 2, 3, 4, 5, 6);
        assertThat(attempts).extracting(RunAttempt::resumption).containsExactly(false, true, true, true, true, true);
        assertThat(attempts)
                .extracting(RunAttempt::endedBy)
                .containsExactly(
                        RunEventType.WAITING,
                        RunEventType.WAITING,
                        RunEventType.WAITING,
                        RunEventType.WAITING,
                        RunEventType.WAITING,
                        RunEventType.SUCCEEDED);
        assertThat(consoleAttempts(run, 4)).isEqualTo(attempts);
        assertThat(actuatorAttempts(run)).isEqualTo(attempts);
        assertThat((Integer) JsonPath.read(body(API + "/runs/" + run), "$.run.spentAttempts"))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("S-EX-34, S-EX-4: a run retried once and then succeeded spent 2 attempts, neither a resumption")
    void aRetriedRunSpentTwoAttempts() throws Exception {
        UUID run = runlane.trigger("approvals.flaky", new Waits(0)).runId();
        Run succeeded = awaitStatus(run, RunStatus.SUCCEEDED);

        assertThat(succeeded.attempts()).isEqualTo(2);
        assertThat(succeeded.spentAttempts()).isEqualTo(2);
        List<RunAttempt> attempts = runlane.runs().attempts(run);
        assertThat(attempts)
                .extracting(RunAttempt::endedBy)
                .containsExactly(RunEventType.RETRY_SCHEDULED, RunEventType.SUCCEEDED);
        assertThat(attempts).extracting(RunAttempt::resumption).containsExactly(false, false);
        assertThat(consoleAttempts(run, 50)).isEqualTo(attempts);
        assertThat(actuatorAttempts(run)).isEqualTo(attempts);
        assertThat((Integer) JsonPath.read(body(API + "/runs/" + run), "$.run.spentAttempts"))
                .isEqualTo(2);
    }

    @Test
    @DisplayName("S-EX-34, S-CP-3: a successor's wait for the run it supersedes is no parking: its first attempt is no"
            + " resumption")
    void aSuccessorsFirstAttemptIsNoResumption() throws Exception {
        TriggerOptions desk = TriggerOptions.builder().singletonKey("desk").build();
        UUID first = runlane.trigger("approvals.hold", new Waits(0), desk).runId();
        awaitStatus(first, RunStatus.RUNNING);
        UUID second = runlane.trigger(
                        "approvals.hold",
                        new Waits(0),
                        TriggerOptions.builder()
                                .singletonKey("desk")
                                .onSingletonConflict(SingletonConflictPolicy.SUPERSEDE)
                                .build())
                .runId();
        awaitStatus(first, RunStatus.CANCELLED);
        Run running = awaitStatus(second, RunStatus.RUNNING);
        runlane.runs().cancel(second, "test over");
        awaitStatus(second, RunStatus.CANCELLED);

        assertThat(runlane.runs().events(second))
                .extracting(RunEvent::type)
                .containsSubsequence(RunEventType.WAITING, RunEventType.CLAIMED);
        assertThat(running.spentAttempts()).isEqualTo(1);
        List<RunAttempt> attempts = runlane.runs().attempts(second);
        assertThat(attempts).extracting(RunAttempt::resumption).containsExactly(false);
        assertThat(consoleAttempts(second, 50)).isEqualTo(attempts);
        assertThat(runlane.runs().get(second).orElseThrow().spentAttempts()).isEqualTo(1);
    }

    /** The console's attempts, oldest first, read page by page of {@code limit}: the detail, then the list pages. */
    private List<RunAttempt> consoleAttempts(UUID run, int limit) throws Exception {
        List<RunAttempt> attempts = new ArrayList<>();
        String page = body(API + "/runs/" + run + "/attempts?limit=" + limit);
        while (true) {
            attempts.addAll(attempts(JsonPath.read(page, "$.items")));
            String cursor = JsonPath.read(page, "$.nextCursor");
            if (cursor == null) {
                break;
            }
            page = body(API + "/runs/" + run + "/attempts?limit=" + limit + "&cursor=" + cursor);
        }
        List<RunAttempt> detail = attempts(JsonPath.read(body(API + "/runs/" + run), "$.attempts.items"));
        assertThat(detail).isEqualTo(attempts.subList(0, Math.min(attempts.size(), 50)));
        Collections.reverse(attempts);
        return attempts;
    }

    private List<RunAttempt> actuatorAttempts(UUID run) throws Exception {
        return attempts(JsonPath.read(body("/actuator/runlane/runs/" + run), "$.attempts"));
    }

    private List<RunAttempt> attempts(List<Map<String, Object>> items) {
        return items.stream()
                .map(item -> json.convertValue(item, RunAttempt.class))
                .toList();
    }

    private String body(String path) throws Exception {
        return mvc.perform(get(path))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }

    /** The run once it waits for the {@code n}th signal, after {@code n} attempts. */
    private Run awaitWaitingFor(UUID run, int n) {
        return await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> runlane.runs().get(run).orElseThrow(),
                        current -> current.status() == RunStatus.WAITING && current.attempts() == n);
    }

    private Run awaitStatus(UUID run, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(run).orElseThrow(), current -> current.status() == status);
    }
}

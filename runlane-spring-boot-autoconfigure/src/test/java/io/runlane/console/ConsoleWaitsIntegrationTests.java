package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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

/**
 * The engine's wait steps are tagged as waits in the console's run detail and step pages (S-CO-11): a signal wait's
 * deadline and outcome, a wait for a run's result, and a sleep, told from the handler's own steps.
 */
@DirtiesContext
@SpringBootTest(
        classes = {ConsoleTestApplication.class, ConsoleWaitsIntegrationTests.Tasks.class},
        properties = {"runlane.console.enabled=true", "runlane.console.show-values=always"})
class ConsoleWaitsIntegrationTests {

    private static final String API = "/runlane/api";

    /** A name for the sleep and the signal; markup, to show it stays text in the page. */
    public record Names(String sleep, String signal) {}

    /** A step, a sleep, a signal wait and a wait for a child's result, in that order. */
    @Task(id = "waits.mixed")
    static class Mixed implements TaskHandler<Names> {

        @Override
        public void run(Names names, RunContext context) throws Exception {
            context.step("prepare", step -> {});
            context.sleep(names.sleep(), Duration.ofMillis(100));
            context.awaitSignal(names.signal(), String.class, Duration.ofHours(1));
            UUID child = context.step(
                    "start-child",
                    UUID.class,
                    step -> context.runlane().trigger("waits.child", names).runId());
            context.awaitResult(child, Object.class, Duration.ofHours(1));
        }
    }

    /** Succeeds at once. */
    @Task(id = "waits.child")
    static class Child implements TaskHandler<Names> {

        @Override
        public void run(Names names, RunContext context) {}
    }

    @Configuration(proxyBeanMethods = false)
    @Import({Mixed.class, Child.class})
    static class Tasks {}

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_waits");
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
    @DisplayName("S-CO-11: the steps of a sleep, a signal wait and a wait for a run's result are tagged by kind and"
            + " role; the handler's own steps are not")
    void waitStepsAreTaggedByKind() throws Exception {
        UUID run = runlane.trigger("waits.mixed", new Names("nap", "go")).runId();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Run current = runlane.runs().get(run).orElseThrow();
            return current.status() == RunStatus.WAITING
                    && runlane.runs().steps(run).stream().anyMatch(s -> s.name().equals("awaitSignal.go.deadline"));
        });
        runlane.signals().send(run, "go", "yes");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(run).orElseThrow().status() == RunStatus.SUCCEEDED);

        String detail = body(API + "/runs/" + run);
        Map<String, Object> byName = tags(JsonPath.read(detail, "$.steps.items"));
        UUID child = UUID.fromString(JsonPath.read(detail, "$.steps.items[?(@.name == 'start-child')].resultJson")
                .toString()
                .replaceAll("[\\[\\]\"]", ""));
        assertThat(byName)
                .containsEntry("prepare", "none")
                .containsEntry("start-child", "none")
                .containsEntry("nap", "sleep/nap/until")
                .containsEntry("awaitSignal.go.deadline", "signal/go/deadline")
                .containsEntry("awaitSignal.go", "signal/go/outcome")
                .containsEntry("awaitResult." + child + ".deadline", "result/" + child + "/deadline")
                .containsEntry("awaitResult." + child, "result/" + child + "/outcome")
                .hasSize(7);
        assertThat(tags(JsonPath.read(body(API + "/runs/" + run + "/steps?limit=2"), "$.items")))
                .hasSize(2);
        assertThat((List<Object>) JsonPath.<List<Object>>read(
                        detail, "$.steps.items[?(@.name == 'awaitSignal.go')].resultJson.payload"))
                .containsExactly("yes");
    }

    /** Each step's name with its tag: {@code kind/subject/role}, or {@code none}. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> tags(List<Map<String, Object>> steps) {
        return steps.stream().collect(java.util.stream.Collectors.toMap(step -> (String) step.get("name"), step -> {
            Map<String, Object> waiting = (Map<String, Object>) step.get("waiting");
            return (waiting == null)
                    ? "none"
                    : waiting.get("kind") + "/" + waiting.get("subject") + "/" + waiting.get("role");
        }));
    }

    private String body(String path) throws Exception {
        return mvc.perform(get(path))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }
}

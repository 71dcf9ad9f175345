package io.runlane.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.runlane.ConfigurationInvalidException;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.SingletonConflictException;
import io.runlane.StepNotFoundException;
import io.runlane.TaskNotFoundException;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.autoconfigure.web.RunlaneProblemDetailsAutoConfiguration;
import io.runlane.autoconfigure.web.RunlaneProblemDetailsExceptionHandler;
import io.runlane.testsupport.TestDatabase;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The opt-in mapping of Runlane's exceptions to problem details in an MVC application (issue 15, item 12). */
class RunlaneProblemDetailsAutoConfigurationTests {

    private static final UUID OWNER = UUID.fromString("01890000-0000-7000-8000-000000000001");

    private WebApplicationContextRunner runner;

    @BeforeEach
    void runner() {
        runner = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        HttpMessageConvertersAutoConfiguration.class,
                        DispatcherServletAutoConfiguration.class,
                        WebMvcAutoConfiguration.class,
                        RunlaneAutoConfiguration.class,
                        RunlaneProblemDetailsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=2",
                        "runlane.schema.name=" + TestDatabase.freshSchema("problems"),
                        "runlane.worker.enabled=false")
                .withBean(FailingController.class);
    }

    @Test
    @DisplayName("Issue 15.12: the mapping is off unless runlane.web.problem-details.enabled is set")
    void isOffByDefault() {
        runner.run(context -> assertThat(context).doesNotHaveBean(RunlaneProblemDetailsExceptionHandler.class));
    }

    @Test
    @DisplayName("Issue 15.12: bad input is 400, unknown runs, tasks and steps 404, conflicts 409, each with its code")
    void exceptionsBecomeProblemDetailsWithTheirCode() {
        runner.withPropertyValues("runlane.web.problem-details.enabled=true").run(context -> {
            assertThat(context).hasSingleBean(RunlaneProblemDetailsExceptionHandler.class);
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(get("/bad-input"))
                    .andExpect(status().isBadRequest())
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.code").value("configuration_invalid"))
                    .andExpect(jsonPath("$.detail").value("delay must not be negative"));
            mvc.perform(get("/unknown-run"))
                    .andExpect(status().isNotFound())
                    .andExpect(jsonPath("$.code").value("run_not_found"));
            mvc.perform(get("/unknown-task"))
                    .andExpect(status().isNotFound())
                    .andExpect(jsonPath("$.code").value("task_not_found"));
            mvc.perform(get("/unknown-step"))
                    .andExpect(status().isNotFound())
                    .andExpect(jsonPath("$.code").value("step_not_found"));
            mvc.perform(get("/singleton-conflict"))
                    .andExpect(status().isConflict())
                    .andExpect(jsonPath("$.code").value("singleton_conflict"))
                    .andExpect(jsonPath("$.ownerRunId").value(OWNER.toString()));
            mvc.perform(get("/run-state"))
                    .andExpect(status().isConflict())
                    .andExpect(jsonPath("$.code").value("run_state_invalid"))
                    .andExpect(jsonPath("$.status").value("RUNNING"));
            mvc.perform(get("/rate-limited"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.code").value("rate_limited"))
                    .andExpect(jsonPath("$.taskId").value("exports.build"))
                    .andExpect(jsonPath("$.rateLimitKey").value("customer-1"))
                    .andExpect(header().string("Retry-After", org.hamcrest.Matchers.oneOf("89", "90")));
        });
    }

    @Test
    @DisplayName("S-RT-2: Retry-After is the wait in whole seconds, rounded up, and 0 once retryAfter has passed")
    void retryAfterRoundsUp() {
        java.time.Instant now = java.time.Instant.parse("2026-01-01T00:00:00Z");

        assertThat(RunlaneProblemDetailsExceptionHandler.retryAfterSeconds(now.plusMillis(1), now))
                .isEqualTo(1);
        assertThat(RunlaneProblemDetailsExceptionHandler.retryAfterSeconds(now.plusSeconds(2), now))
                .isEqualTo(2);
        assertThat(RunlaneProblemDetailsExceptionHandler.retryAfterSeconds(now.plusMillis(2001), now))
                .isEqualTo(3);
        assertThat(RunlaneProblemDetailsExceptionHandler.retryAfterSeconds(now.minusSeconds(5), now))
                .isZero();
    }

    @Test
    @DisplayName("Issue 15.12: an application's own handler bean replaces Runlane's")
    void applicationsHandlerWins() {
        runner.withPropertyValues("runlane.web.problem-details.enabled=true")
                .withBean("myHandler", RunlaneProblemDetailsExceptionHandler.class)
                .run(context -> assertThat(context)
                        .getBeanNames(RunlaneProblemDetailsExceptionHandler.class)
                        .containsExactly("myHandler"));
    }

    @RestController
    static class FailingController {

        private final RunlaneTemplate template;

        FailingController(RunlaneTemplate template) {
            this.template = template;
        }

        @GetMapping("/bad-input")
        void badInput() {
            throw new ConfigurationInvalidException("delay", "must not be negative");
        }

        @GetMapping("/unknown-run")
        void unknownRun() {
            template.runs().get(UUID.randomUUID()).orElseThrow(() -> new RunNotFoundException(UUID.randomUUID()));
        }

        @GetMapping("/unknown-task")
        void unknownTask() {
            throw new TaskNotFoundException("reports.unknown");
        }

        @GetMapping("/unknown-step")
        void unknownStep() {
            throw new StepNotFoundException(OWNER, "ship");
        }

        @GetMapping("/singleton-conflict")
        void singletonConflict() {
            throw new SingletonConflictException("orders.confirm", "order-1", OWNER);
        }

        @GetMapping("/rate-limited")
        void rateLimited() {
            throw new io.runlane.RateLimitExceededException(
                    "exports.build", "customer-1", java.time.Instant.now().plusSeconds(90));
        }

        @GetMapping("/run-state")
        void runState() {
            throw new RunStateException(OWNER, RunStatus.RUNNING, "only a terminal run can be rerun (S-OP-2)");
        }
    }
}

package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

/**
 * Handlers are ordinary beans: they may trigger other tasks through the {@link RunlaneTemplate}, injected directly,
 * through a service or through an {@link ObjectProvider}, although the template's engine needs the task registry.
 * The registry reads the {@code @Task} bean types and looks the handlers up when a run first needs them.
 */
@RunlaneDatabaseTest
class TaskInjectionIntegrationTests {

    @FreshSchema("task_injection_it")
    private String schema;

    @Test
    @DisplayName("Finding 1: a @Task depending on RunlaneTemplate, on a service holding it or on an ObjectProvider"
            + " starts, runs and triggers another task")
    void handlersThatTriggerOtherTasksStartAndRun() {
        try (ConfigurableApplicationContext context = start(TriggeringTasksApplication.class)) {
            RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);

            runlane.trigger(TemplateTask.class, new Start("template"));
            runlane.trigger(ServiceTask.class, new Start("service"));
            runlane.trigger(ProviderTask.class, new Start("provider"));

            FollowUps followUps = context.getBean(FollowUps.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() ->
                            assertThat(followUps.from).containsExactlyInAnyOrder("template", "service", "provider"));
        }
    }

    @Test
    @DisplayName("Finding 1: a bad @Task declaration still fails start-up although handlers are looked up lazily"
            + " (S-ID-2)")
    void badDeclarationStillFailsStartUp() {
        assertThatException()
                .isThrownBy(() -> start(BadDeclarationApplication.class).close())
                .withRootCauseInstanceOf(TaskDeclarationException.class)
                .withStackTraceContaining(NotAHandler.class.getName())
                .withStackTraceContaining("does not implement TaskHandler");
    }

    private ConfigurableApplicationContext start(Class<?> application) {
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(Map.of(
                        "spring.datasource.url",
                        TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size",
                        "4",
                        "runlane.schema.name",
                        schema,
                        "runlane.worker.poll-interval",
                        "200ms"))
                .run();
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    abstract static class RunlaneApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import({
        FollowUps.class,
        FollowUp.class,
        Notifications.class,
        TemplateTask.class,
        ServiceTask.class,
        ProviderTask.class
    })
    static class TriggeringTasksApplication extends RunlaneApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(NotAHandler.class)
    static class BadDeclarationApplication extends RunlaneApplication {}

    public record Start(String from) {}

    /** What the follow-up task received. */
    @Service
    public static class FollowUps {

        final Set<String> from = ConcurrentHashMap.newKeySet();
    }

    @Task(id = "injection.follow-up")
    public static class FollowUp implements TaskHandler<Start> {

        private final FollowUps followUps;

        public FollowUp(FollowUps followUps) {
            this.followUps = followUps;
        }

        @Override
        public void run(Start payload, RunContext context) {
            followUps.from.add(payload.from());
        }
    }

    /** An application service that triggers tasks; handlers depend on it. */
    @Service
    public static class Notifications {

        private final RunlaneTemplate runlane;

        public Notifications(RunlaneTemplate runlane) {
            this.runlane = runlane;
        }

        void followUp(String from) {
            runlane.trigger(FollowUp.class, new Start(from));
        }
    }

    @Task(id = "injection.template")
    public static class TemplateTask implements TaskHandler<Start> {

        private final RunlaneTemplate runlane;

        public TemplateTask(RunlaneTemplate runlane) {
            this.runlane = runlane;
        }

        @Override
        public void run(Start payload, RunContext context) {
            runlane.trigger(FollowUp.class, payload);
        }
    }

    @Task(id = "injection.service")
    public static class ServiceTask implements TaskHandler<Start> {

        private final Notifications notifications;

        public ServiceTask(Notifications notifications) {
            this.notifications = notifications;
        }

        @Override
        public void run(Start payload, RunContext context) {
            notifications.followUp(payload.from());
        }
    }

    @Task(id = "injection.provider")
    public static class ProviderTask implements TaskHandler<Start> {

        private final ObjectProvider<RunlaneTemplate> runlane;

        public ProviderTask(ObjectProvider<RunlaneTemplate> runlane) {
            this.runlane = runlane;
        }

        @Override
        public void run(Start payload, RunContext context) {
            runlane.getObject().trigger(FollowUp.class, payload);
        }
    }

    @Task(id = "injection.not-a-handler")
    public static class NotAHandler {}
}

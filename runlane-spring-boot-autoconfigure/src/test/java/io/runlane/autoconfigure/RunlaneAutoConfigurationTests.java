package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.InvalidKeyException;
import io.runlane.PayloadValidationException;
import io.runlane.RunContext;
import io.runlane.RunlaneException;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.ExecutionSettings;
import io.runlane.internal.RunlaneEngine;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.trigger.BeanValidationPayloadValidator;
import io.runlane.internal.trigger.PayloadValidator;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.SendMail;
import jakarta.validation.constraints.NotBlank;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Runlane's auto-configuration in an {@link ApplicationContextRunner} with Boot's DataSource, transaction manager,
 * Jackson and validation auto-configurations, against the test PostgreSQL with a fresh schema per test.
 */
class RunlaneAutoConfigurationTests {

    private static HikariDataSource admin;

    private String schema;

    private ApplicationContextRunner runner;

    @BeforeAll
    static void openAdminDataSource() {
        admin = TestDatabase.newDataSource(2);
    }

    @AfterAll
    static void closeAdminDataSource() {
        admin.close();
    }

    @BeforeEach
    void freshSchema() {
        schema = TestDatabase.freshSchema(admin, "autoconfig");
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        ValidationAutoConfiguration.class,
                        RunlaneAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=2",
                        "runlane.schema.name=" + schema);
    }

    @Test
    void templateIsAutoConfiguredOnTheApplicationsDataSource() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RunlaneTemplate.class);
            assertThat(context).hasSingleBean(RunlaneEngine.class);
            assertThat(context).hasSingleBean(TaskRegistry.class);
            assertThat(context).hasSingleBean(RunlaneSchemaInitializer.class);
            assertThat(context).getBean(PayloadValidator.class).isInstanceOf(BeanValidationPayloadValidator.class);
            assertThat(context.getBean(RunlaneTemplate.class))
                    .isSameAs(context.getBean(RunlaneEngine.class).template());
            assertThat(schemaExists()).isTrue();
        });
    }

    @Test
    void taskBeansAreRegisteredAndCanBeTriggered() {
        runner.withBean(ConfirmOrder.class).withBean(SendMail.class).run(context -> {
            assertThat(context.getBean(TaskRegistry.class).all())
                    .extracting(definition -> definition.id())
                    .containsExactly("mail.send", "orders.confirm");
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);

            TriggerResult result = template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-1", 2));

            assertThat(result.created()).isTrue();
            assertThat(template.runs().get(result.runId())).isPresent();
            assertThat(runCount()).isEqualTo(1);
        });
    }

    @Test
    void propertiesBecomeTheEngineSettings() {
        runner.withPropertyValues(
                        "runlane.environment=staging",
                        "runlane.idempotency.default-ttl=7d",
                        "runlane.retry.max-attempts=5",
                        "runlane.queues.reports.concurrency-limit=2",
                        "runlane.queues.imports.concurrency-limit=1")
                .run(context -> {
                    RunlaneSettings settings = context.getBean(RunlaneSettings.class);
                    assertThat(settings.environment()).isEqualTo("staging");
                    assertThat(settings.schema()).isEqualTo(schema);
                    assertThat(settings.defaultIdempotencyKeyTtl()).isEqualTo(IdempotencyKeyTtl.of(Duration.ofDays(7)));
                    assertThat(settings.defaultMaxAttempts()).isEqualTo(5);
                    assertThat(settings.queues()).containsExactlyInAnyOrder("default", "reports", "imports");
                });
    }

    @Test
    void attemptTimeoutAndCancellationGraceBecomeExecutionSettings() {
        runner.run(context -> {
            ExecutionSettings execution = context.getBean(ExecutionSettings.class);
            assertThat(execution.attemptTimeout()).isNull();
            assertThat(execution.cancellationGrace()).isEqualTo(Duration.ofMinutes(5));
        });
        runner.withPropertyValues("runlane.worker.attempt-timeout=10m", "runlane.worker.cancellation-grace=30s")
                .run(context -> {
                    ExecutionSettings execution = context.getBean(ExecutionSettings.class);
                    assertThat(execution.attemptTimeout()).isEqualTo(Duration.ofMinutes(10));
                    assertThat(execution.cancellationGrace()).isEqualTo(Duration.ofSeconds(30));
                });
        runner.withPropertyValues("runlane.worker.attempt-timeout=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("runlane.worker.attempt-timeout"));
    }

    @Test
    void backsOffWithoutADataSource() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(JacksonAutoConfiguration.class, RunlaneAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RunlaneTemplate.class);
                    assertThat(context).doesNotHaveBean(RunlaneSettings.class);
                });
    }

    @Test
    void backsOffWithTwoDataSourcesAndNoPrimary() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RunlaneAutoConfiguration.class))
                .withBean("ordersDataSource", SimpleDriverDataSource.class)
                .withBean("billingDataSource", SimpleDriverDataSource.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RunlaneTemplate.class);
                });
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("runlane.enabled=false")
                .withBean(ConfirmOrder.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RunlaneTemplate.class);
                    assertThat(context).doesNotHaveBean(RunlaneSchemaInitializer.class);
                    assertThat(context).doesNotHaveBean(TaskRegistry.class);
                    assertThat(schemaExists()).isFalse();
                });
    }

    @Test
    void schemaIsLeftAloneWhenInitializationIsOff() {
        runner.withPropertyValues("runlane.schema.initialize=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(RunlaneSchemaInitializer.class);
            assertThat(context).hasSingleBean(RunlaneTemplate.class);
            assertThat(schemaExists()).isFalse();
        });
    }

    @Test
    void userSuppliedTemplateWins() {
        RunlaneTemplate custom = mock(RunlaneTemplate.class);
        runner.withBean("customRunlaneTemplate", RunlaneTemplate.class, () -> custom)
                .run(context -> {
                    assertThat(context).hasSingleBean(RunlaneTemplate.class);
                    assertThat(context.getBean(RunlaneTemplate.class)).isSameAs(custom);
                });
    }

    @Test
    void userSuppliedPayloadValidatorWins() {
        PayloadValidator custom = payload -> List.of("payload: refused by the application");
        runner.withBean("customPayloadValidator", PayloadValidator.class, () -> custom)
                .withBean(ConfirmOrder.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(PayloadValidator.class);
                    assertThat(context.getBean(PayloadValidator.class)).isSameAs(custom);
                    RunlaneTemplate template = context.getBean(RunlaneTemplate.class);

                    assertThatExceptionOfType(PayloadValidationException.class)
                            .isThrownBy(() -> template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-1", 1)))
                            .satisfies(ex ->
                                    assertThat(ex.violations()).containsExactly("payload: refused by the application"));
                    assertThat(runCount()).isZero();
                });
    }

    @Test
    void beanValidationConstraintsAreCheckedWithTheApplicationsValidator() {
        runner.withBean(ConfirmOrder.class).run(context -> {
            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);

            assertThatExceptionOfType(PayloadValidationException.class)
                    .isThrownBy(() -> template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("", 0)))
                    .satisfies(ex -> assertThat(ex.violations()).hasSize(2));
            assertThat(runCount()).isZero();
        });
    }

    @Test
    void startsWithoutBeanValidationAndDoesNotValidate() {
        runner.withClassLoader(new FilteredClassLoader("jakarta.validation"))
                .withBean(ConfirmOrder.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(PayloadValidator.class);
                    RunlaneTemplate template = context.getBean(RunlaneTemplate.class);

                    TriggerResult result = template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("", 0));

                    assertThat(result.created()).isTrue();
                });
    }

    @Test
    void startsWithoutTheValidatorClassAndDoesNotValidate() {
        runner.withClassLoader(new FilteredClassLoader(jakarta.validation.Validator.class))
                .withBean(ConfirmOrder.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(PayloadValidator.class);
                    assertThat(context.getBean(RunlaneTemplate.class)
                                    .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("", 0))
                                    .created())
                            .isTrue();
                });
    }

    @Test
    void payloadsAreStoredWithTheApplicationsJsonMapper() {
        runner.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE")
                .withBean(ConfirmOrder.class)
                .run(context -> {
                    TriggerResult result = context.getBean(RunlaneTemplate.class)
                            .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-snake", 1));

                    assertThat(result.run().payloadJson()).contains("\"order_id\"");
                });
    }

    @Test
    void startsWithoutAnApplicationJsonMapper() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, RunlaneAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=2",
                        "runlane.schema.name=" + schema)
                .withBean(SendMail.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TriggerResult result = context.getBean(RunlaneTemplate.class)
                            .trigger(SendMail.class, new SendMail.Payload("a@example.com"));
                    assertThat(result.run().payloadJson()).contains("a@example.com");
                });
    }

    // Invalid configuration fails start-up, naming the property.

    static Stream<Arguments> invalidProperties() {
        return Stream.of(
                Arguments.of("runlane.environment=prod:eu", "runlane.environment", InvalidKeyException.class),
                Arguments.of("runlane.environment=", "runlane.environment", InvalidKeyException.class),
                Arguments.of(
                        "runlane.environment=" + "e".repeat(256), "runlane.environment", InvalidKeyException.class),
                Arguments.of(
                        "runlane.schema.name=Runlane-Tasks",
                        "runlane.schema.name",
                        ConfigurationInvalidException.class),
                Arguments.of(
                        "runlane.schema.name=runlane; drop table x",
                        "runlane.schema.name",
                        ConfigurationInvalidException.class),
                Arguments.of(
                        "runlane.idempotency.default-ttl=forever",
                        "runlane.idempotency.default-ttl",
                        ConfigurationInvalidException.class),
                Arguments.of(
                        "runlane.idempotency.default-ttl=0s",
                        "runlane.idempotency.default-ttl",
                        ConfigurationInvalidException.class),
                Arguments.of(
                        "runlane.retry.max-attempts=0",
                        "runlane.retry.max-attempts",
                        ConfigurationInvalidException.class));
    }

    @ParameterizedTest(name = "{0} fails start-up naming {1}")
    @MethodSource("invalidProperties")
    void invalidPropertyFailsStartUpNamingTheProperty(
            String property, String name, Class<? extends RunlaneException> type) {
        runner.withPropertyValues(property).run(context -> {
            RunlaneException failure = startupFailure(context, type);
            assertThat(failure.code()).isIn("invalid_key", "configuration_invalid");
            assertThat(failure.getMessage()).contains(name);
        });
    }

    // S-QC-1: queues are declared under runlane.queues.<name>.

    @Test
    void declaredQueueCanBeUsedByATaskAndByATriggerOption() {
        runner.withPropertyValues("runlane.queues.reports.concurrency-limit=2")
                .withBean(ReportTask.class)
                .withBean(SendMail.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RunlaneTemplate template = context.getBean(RunlaneTemplate.class);

                    assertThat(template.trigger(ReportTask.class, new ReportTask.Payload("r-1"))
                                    .run()
                                    .queue())
                            .isEqualTo("reports");
                    assertThat(template.trigger(
                                            SendMail.class,
                                            new SendMail.Payload("a@example.com"),
                                            TriggerOptions.builder()
                                                    .queue("reports")
                                                    .build())
                                    .run()
                                    .queue())
                            .isEqualTo("reports");
                });
    }

    @Test
    void taskOnAnUndeclaredQueueFailsStartUpNamingTheClass() {
        runner.withBean(ReportTask.class).run(context -> {
            RunlaneException failure = startupFailure(context, ConfigurationInvalidException.class);
            assertThat(failure.getMessage())
                    .contains(ReportTask.class.getName())
                    .contains("runlane.queues.reports");
        });
    }

    // S-ID-2: bad declarations fail start-up, naming the class.

    static Stream<Arguments> badDeclarations() {
        return Stream.of(
                Arguments.of(EmptyIdTask.class, "id must not be empty"),
                Arguments.of(ColonIdTask.class, "id must not contain ':'"),
                Arguments.of(ColonQueueTask.class, "queue must not contain ':'"),
                Arguments.of(BadTtlTask.class, "'someday'"),
                Arguments.of(NegativeMaxAttemptsTask.class, "maxAttempts"),
                Arguments.of(BadBackoffTask.class, "backoff"),
                Arguments.of(NotAHandlerTask.class, "does not implement TaskHandler"),
                Arguments.of(RawTask.class, "concrete payload type"));
    }

    @ParameterizedTest(name = "{0} fails start-up")
    @MethodSource("badDeclarations")
    void badTaskDeclarationFailsStartUpNamingTheClass(Class<?> taskClass, String reason) {
        runner.withBean(taskClass).run(context -> {
            RunlaneException failure = startupFailure(context, ConfigurationInvalidException.class);
            assertThat(failure.code()).isEqualTo("configuration_invalid");
            assertThat(failure.getMessage()).contains(taskClass.getName()).contains(reason);
        });
    }

    @Test
    void twoTasksWithTheSameIdFailStartUpNamingBothClasses() {
        runner.withBean(ReportTask.class)
                .withBean(DuplicateReportTask.class)
                .withPropertyValues("runlane.queues.reports.concurrency-limit=1")
                .run(context -> {
                    RunlaneException failure = startupFailure(context, ConfigurationInvalidException.class);
                    assertThat(failure.getMessage())
                            .contains("'reports.build-monthly'")
                            .contains(ReportTask.class.getName())
                            .contains(DuplicateReportTask.class.getName());
                });
    }

    private static <T extends RunlaneException> T startupFailure(AssertableApplicationContext context, Class<T> type) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("Expected a " + type.getName() + " in the start-up failure", failure);
    }

    private boolean schemaExists() {
        Integer count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?",
                        Integer.class,
                        schema);
        return count != null && count > 0;
    }

    private long runCount() {
        Long count = new JdbcTemplate(admin).queryForObject("SELECT count(*) FROM " + schema + ".runs", Long.class);
        return count == null ? 0 : count;
    }

    @Task(id = "reports.build-monthly", queue = "reports")
    public static class ReportTask implements TaskHandler<ReportTask.Payload> {

        public record Payload(@NotBlank String reportId) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Task(id = "reports.build-monthly", queue = "reports")
    public static class DuplicateReportTask implements TaskHandler<ReportTask.Payload> {
        @Override
        public void run(ReportTask.Payload payload, RunContext context) {}
    }

    public record Nothing() {}

    @Task(id = "")
    public static class EmptyIdTask implements TaskHandler<Nothing> {
        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports:monthly")
    public static class ColonIdTask implements TaskHandler<Nothing> {
        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports.colon-queue", queue = "reports:eu")
    public static class ColonQueueTask implements TaskHandler<Nothing> {
        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports.bad-ttl", idempotencyKeyTtl = "someday")
    public static class BadTtlTask implements TaskHandler<Nothing> {
        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports.negative-attempts", maxAttempts = -2)
    public static class NegativeMaxAttemptsTask implements TaskHandler<Nothing> {
        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports.bad-backoff", backoff = "1 minute")
    public static class BadBackoffTask implements TaskHandler<Nothing> {
        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "reports.not-a-handler")
    public static class NotAHandlerTask {
        public void run(Nothing payload) {}
    }

    @Task(id = "reports.raw")
    @SuppressWarnings("rawtypes")
    public static class RawTask implements TaskHandler {
        @Override
        public void run(Object payload, RunContext context) {}
    }
}

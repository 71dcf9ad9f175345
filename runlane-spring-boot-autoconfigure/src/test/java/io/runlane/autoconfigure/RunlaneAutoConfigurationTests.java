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
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.BeanValidationPayloadValidator;
import io.runlane.internal.registry.PayloadValidator;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneChangelog;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.schema.RunlaneSchemaVerifier;
import io.runlane.internal.schema.SchemaNotAppliedException;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.SendMail;
import jakarta.validation.constraints.NotBlank;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Runlane's auto-configuration in an {@link ApplicationContextRunner} with Boot's DataSource, transaction manager,
 * Jackson and validation auto-configurations, against the test PostgreSQL with a fresh schema per test.
 */
@RunlaneDatabaseTest
class RunlaneAutoConfigurationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("autoconfig")
    private String schema;

    private ApplicationContextRunner runner;

    @BeforeEach
    void runner() {
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
    void resultsMaxSizeBecomesTheEnginesLimit() {
        runner.withPropertyValues("runlane.results.max-size=64KB")
                .run(context -> assertThat(context.getBean(io.runlane.internal.engine.RunlaneEngine.class)
                                .durable()
                                .codec()
                                .maxResultBytes())
                        .isEqualTo(64 * 1024));
    }

    @Test
    @DisplayName("S-EX-36: runlane.worker.start-on-trigger is on by default and can be turned off; a value that is not"
            + " a boolean fails the start naming the property")
    void startOnTriggerBecomesExecutionSettings() {
        runner.run(
                context -> assertThat(context.getBean(ExecutionSettings.class).startOnTrigger())
                        .isTrue());
        runner.withPropertyValues("runlane.worker.start-on-trigger=false")
                .run(context -> assertThat(
                                context.getBean(ExecutionSettings.class).startOnTrigger())
                        .isFalse());
        runner.withPropertyValues("runlane.worker.start-on-trigger=sometimes")
                .run(context ->
                        assertThat(context).getFailure().hasStackTraceContaining("runlane.worker.start-on-trigger"));
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
    @DisplayName("Issue 15.5: several DataSources with none marked fail start-up instead of backing off silently")
    void failsWithTwoDataSourcesAndNoneMarked() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RunlaneAutoConfiguration.class))
                .withBean("ordersDataSource", SimpleDriverDataSource.class)
                .withBean("billingDataSource", SimpleDriverDataSource.class)
                .run(context -> assertThat(startupFailure(context, RunlaneDataSourceNotUniqueException.class)
                                .beanNames())
                        .containsExactly("ordersDataSource", "billingDataSource"));
    }

    @Test
    @DisplayName("Issue 15.5: with several DataSources, Runlane uses the one marked @RunlaneDataSource")
    void usesTheDataSourceMarkedRunlaneDataSource() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(JacksonAutoConfiguration.class, RunlaneAutoConfiguration.class))
                .withPropertyValues("runlane.schema.name=" + schema, "runlane.worker.enabled=false")
                .withUserConfiguration(TwoDataSources.class)
                .withBean(ConfirmOrder.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TriggerResult result = context.getBean(RunlaneTemplate.class)
                            .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-marked", 1));
                    assertThat(result.created()).isTrue();
                    assertThat(schemaExists()).isTrue();
                    assertThat(context.getBean("otherDataSource", CountingDataSource.class)
                                    .connections())
                            .as("the unmarked DataSource is never used")
                            .isZero();
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
    @DisplayName("Issue 15.3: with initialization off, a complete schema is checked and left alone")
    void schemaIsLeftAloneWhenInitializationIsOff() {
        new RunlaneSchemaInitializer(admin, schema).initialize();
        long changesets = changelogRows();
        runner.withPropertyValues("runlane.schema.initialize=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(RunlaneSchemaInitializer.class);
            assertThat(context).hasSingleBean(RunlaneSchemaVerifier.class);
            assertThat(context).hasSingleBean(RunlaneTemplate.class);
            assertThat(changelogRows()).isEqualTo(changesets);
        });
    }

    @Test
    @DisplayName("Issue 15.3: with initialization off, a missing schema fails start-up listing every changelog file")
    void missingSchemaFailsStartUpWhenInitializationIsOff() {
        runner.withPropertyValues("runlane.schema.initialize=false").run(context -> {
            SchemaNotAppliedException failure = startupFailure(context, SchemaNotAppliedException.class);
            assertThat(failure.missingFiles())
                    .containsExactlyElementsOf(RunlaneChangelog.load().files().stream()
                            .map(RunlaneChangelog.ChangelogFile::name)
                            .toList())
                    .contains("001-foundation.sql", "004-implicit-creation-event.sql");
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
    @DisplayName("Issue 15.14: without Bean Validation, properties bind and a bad value still fails, naming it")
    void withoutBeanValidationPropertiesAreCheckedByTheEngine() {
        FilteredClassLoader noValidation = new FilteredClassLoader("jakarta.validation", "org.hibernate.validator");
        runner.withClassLoader(noValidation)
                .withPropertyValues("runlane.idempotency.default-ttl=24h")
                .run(context -> assertThat(
                                context.getBean(RunlaneSettings.class).defaultIdempotencyKeyTtl())
                        .isEqualTo(IdempotencyKeyTtl.of(Duration.ofHours(24))));
        runner.withClassLoader(noValidation)
                .withPropertyValues("runlane.worker.concurrency=0")
                .run(context -> assertThat(startupFailure(context, ConfigurationInvalidException.class)
                                .field())
                        .isEqualTo("runlane.worker.concurrency"));
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
                        "runlane.worker.queues=reports", "runlane.worker.queues", ConfigurationInvalidException.class),
                Arguments.of(
                        "runlane.results.max-size=0B",
                        "runlane.results.max-size",
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

    @Test
    @DisplayName("Issue 15.1: a value breaking a Jakarta constraint fails binding, naming the property")
    void constraintViolationFailsBindingNamingTheProperty() {
        runner.withPropertyValues("runlane.retry.max-attempts=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(BindValidationException.class)
                    .hasMessageContaining("retry.maxAttempts")
                    .hasMessageContaining("must be greater than or equal to 1");
        });
    }

    @Test
    @DisplayName("Issue 15.1: the default TTL is a typed property bound from '24h', '7d' or 'active'")
    void defaultTtlIsBoundAsATypedProperty() {
        runner.withPropertyValues("runlane.idempotency.default-ttl=7d").run(context -> {
            assertThat(context.getBean(RunlaneProperties.class).getIdempotency().getDefaultTtl())
                    .isEqualTo(IdempotencyKeyTtl.of(Duration.ofDays(7)));
            assertThat(context.getBean(RunlaneSettings.class).defaultIdempotencyKeyTtl())
                    .isEqualTo(IdempotencyKeyTtl.of(Duration.ofDays(7)));
        });
        runner.withPropertyValues("runlane.idempotency.default-ttl=active")
                .run(context -> assertThat(context.getBean(RunlaneSettings.class)
                                .defaultIdempotencyKeyTtl()
                                .isActive())
                        .isTrue());
    }

    private long changelogRows() {
        Long count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM " + schema + "." + RunlaneSchemaInitializer.CHANGELOG_TABLE, Long.class);
        return count == null ? 0 : count;
    }

    /** Two DataSources to the test server; only the marked one may be used. */
    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {

        @Bean
        @RunlaneDataSource
        CountingDataSource runlaneDataSource() {
            return new CountingDataSource();
        }

        @Bean
        CountingDataSource otherDataSource() {
            return new CountingDataSource();
        }
    }

    /** A DataSource to the test server that counts the connections it hands out. */
    static final class CountingDataSource extends DriverManagerDataSource {

        private final AtomicInteger connections = new AtomicInteger();

        CountingDataSource() {
            super(TestDatabase.jdbcUrl());
        }

        @Override
        public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            return super.getConnection();
        }

        int connections() {
            return connections.get();
        }
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

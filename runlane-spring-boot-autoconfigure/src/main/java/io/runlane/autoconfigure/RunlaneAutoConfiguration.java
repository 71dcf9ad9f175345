package io.runlane.autoconfigure;

import io.runlane.ConfigurationInvalidException;
import io.runlane.RunFailedEvent;
import io.runlane.RunOutcomeListener;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.CompositeEngineListener;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.PruningSettings;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.registry.BeanValidationPayloadValidator;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.PayloadTypeCheck;
import io.runlane.internal.registry.PayloadValidator;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schedule.DeclaredSchedules;
import io.runlane.internal.schedule.ScheduleAnnotations;
import io.runlane.internal.schedule.ScheduleFirer;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.schema.RunlaneSchemaVerifier;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.StringUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configures Runlane for the application's PostgreSQL {@link DataSource} (the one marked
 * {@link RunlaneDataSource @RunlaneDataSource} when there are several): the schema initializer or verifier, the task
 * registry built from {@link Task @Task} beans, and the {@link RunlaneTemplate}.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            "org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration",
            "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration"
        })
@ConditionalOnClass({JdbcClient.class, JsonMapper.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "runlane.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RunlaneProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class RunlaneAutoConfiguration {

    @Bean
    @ConfigurationPropertiesBinding
    static IdempotencyKeyTtlConverter runlaneIdempotencyKeyTtlConverter() {
        return new IdempotencyKeyTtlConverter();
    }

    @Bean
    @ConditionalOnMissingBean
    RunlaneSettings runlaneSettings(RunlaneProperties properties) {
        return new RunlaneSettings(
                properties.getEnvironment(),
                properties.getSchema().getName(),
                properties.getIdempotency().getDefaultTtl(),
                properties.getRetry().getMaxAttempts(),
                properties.getQueues().keySet(),
                properties.getDatabase().getNetworkTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    ExecutionSettings runlaneExecutionSettings(RunlaneProperties properties, Environment environment) {
        WorkerProperties worker = properties.getWorker();
        Map<String, Integer> limits = new LinkedHashMap<>();
        properties.getQueues().forEach((name, queue) -> {
            if (queue.getConcurrencyLimit() != null) {
                limits.put(name, queue.getConcurrencyLimit());
            }
        });
        for (String queue : worker.getQueues()) {
            if (!queue.equals(RunlaneSettings.DEFAULT_QUEUE)
                    && !properties.getQueues().containsKey(queue)) {
                throw new ConfigurationInvalidException(
                        "runlane.worker.queues",
                        "names queue '" + queue + "', which is not declared under runlane.queues");
            }
        }
        return new ExecutionSettings(
                worker.isEnabled(),
                worker.getConcurrency(),
                worker.getPollInterval(),
                worker.getLeaseDuration(),
                worker.getHeartbeatInterval(),
                shutdownTimeout(worker.getShutdownTimeout(), environment),
                Set.copyOf(worker.getQueues()),
                properties.getRetry().getInitialBackoff(),
                properties.getRetry().getMaxBackoff(),
                limits,
                properties.getFailures().getMaxMessageLength(),
                properties.getRecovery().getInterval(),
                properties.getRecovery().getBatchSize(),
                worker.getAttemptTimeout(),
                worker.getCancellationGrace(),
                worker.isStartOnTrigger());
    }

    @Bean
    @ConditionalOnMissingBean
    PruningSettings runlanePruningSettings(RunlaneProperties properties) {
        PruningProperties pruning = properties.getPruning();
        Map<RunStatus, Duration> retention = new EnumMap<>(RunStatus.class);
        retention.put(RunStatus.SUCCEEDED, pruning.getRetention().getSucceeded());
        retention.put(RunStatus.FAILED, pruning.getRetention().getFailed());
        retention.put(RunStatus.CANCELLED, pruning.getRetention().getCancelled());
        return new PruningSettings(retention, pruning.getInterval(), pruning.getBatchSize(), pruning.getTimeBudget());
    }

    @Bean
    @ConditionalOnMissingBean
    ScheduleSettings runlaneScheduleSettings(RunlaneProperties properties) {
        RunlaneProperties.Schedules schedules = properties.getSchedules();
        return new ScheduleSettings(schedules.getPollInterval(), schedules.getCatchUpWindow());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.schema.initialize", matchIfMissing = true)
    RunlaneSchemaInitializer runlaneSchemaInitializer(
            @RunlaneDataSource ObjectProvider<DataSource> runlaneDataSource,
            ObjectProvider<DataSource> dataSources,
            ListableBeanFactory beanFactory,
            RunlaneSettings settings) {
        return new RunlaneSchemaInitializer(
                RunlaneDataSources.select(runlaneDataSource, dataSources, beanFactory), settings.schema());
    }

    /** With the schema managed by the application, start-up checks that every changeset is applied. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.schema.initialize", havingValue = false)
    RunlaneSchemaVerifier runlaneSchemaVerifier(
            @RunlaneDataSource ObjectProvider<DataSource> runlaneDataSource,
            ObjectProvider<DataSource> dataSources,
            ListableBeanFactory beanFactory,
            RunlaneSettings settings,
            Environment environment) {
        return new RunlaneSchemaVerifier(
                RunlaneDataSources.select(runlaneDataSource, dataSources, beanFactory),
                settings.schema(),
                environment.getProperty("spring.liquibase.database-change-log-table", "databasechangelog"),
                environment.getProperty("spring.flyway.table", "flyway_schema_history"),
                historySchemas(environment));
    }

    /**
     * The worker's shutdown timeout, within {@code spring.lifecycle.timeout-per-shutdown-phase} when that is shorter:
     * the worker stops in a phase of its own, and the context waits no longer than that for a phase.
     */
    private static Duration shutdownTimeout(Duration configured, Environment environment) {
        return Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .map(phase -> phase.compareTo(configured) < 0 ? phase : configured)
                .orElse(configured);
    }

    /** The schemas the application's Liquibase or Flyway keeps its history in, when configured. */
    private static List<String> historySchemas(Environment environment) {
        List<String> schemas = new ArrayList<>();
        for (String property : List.of(
                "spring.liquibase.liquibase-schema",
                "spring.liquibase.default-schema",
                "spring.flyway.default-schema",
                "spring.flyway.schemas")) {
            schemas.addAll(StringUtils.commaDelimitedListToSet(environment.getProperty(property)));
        }
        return schemas;
    }

    /** The declared tasks; each payload and result type must round-trip through the payloads' mapper (S-ID-11). */
    @Bean
    @ConditionalOnMissingBean
    TaskRegistry runlaneTaskRegistry(ListableBeanFactory beanFactory, RunlaneSettings settings, PayloadCodec payloads) {
        TaskRegistry registry = TaskBeans.registry(beanFactory, new TaskDefinitionReader(settings));
        new PayloadTypeCheck(payloads.jsonMapper()).check(registry.all());
        return registry;
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec runlanePayloadCodec(
            ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<PayloadValidator> validator) {
        return new PayloadCodec(
                jsonMapper.getIfAvailable(
                        () -> JsonMapper.builder().findAndAddModules().build()),
                validator.getIfAvailable(() -> PayloadValidator.NONE));
    }

    @Bean
    @ConditionalOnMissingBean
    RunlaneEngine runlaneEngine(
            @RunlaneDataSource ObjectProvider<DataSource> runlaneDataSource,
            ObjectProvider<DataSource> dataSources,
            ListableBeanFactory beanFactory,
            ObjectProvider<RunlaneSchemaVerifier> schemaVerifier,
            ObjectProvider<PlatformTransactionManager> transactionManager,
            RunlaneSettings settings,
            ExecutionSettings execution,
            PruningSettings pruning,
            ScheduleSettings schedules,
            TaskRegistry tasks,
            PayloadCodec payloads,
            ObjectProvider<EngineListener> listeners,
            RunlaneProperties properties) {
        DataSource dataSource = RunlaneDataSources.select(runlaneDataSource, dataSources, beanFactory);
        schemaVerifier.ifAvailable(RunlaneSchemaVerifier::verify);
        List<EngineListener> all = listeners.orderedStream().toList();
        return RunlaneEngine.builder(
                        dataSource,
                        RunlaneTransactionManagerSelector.select(dataSource, transactionManager),
                        settings,
                        tasks,
                        payloads)
                .execution(execution)
                .pruning(pruning)
                .schedules(schedules)
                .listener(CompositeEngineListener.of(all))
                .maxResultBytes(properties.getResults().getMaxSize().toBytes())
                .build();
    }

    /**
     * The worker; a lifecycle bean that the context stops first (S-EX-8), started by {@link RunlaneWorkerStarter}:
     * first when the application is ready, then with the context's lifecycle. Handlers run on an executor from Boot's {@link SimpleAsyncTaskExecutorBuilder}: virtual threads with
     * {@code spring.threads.virtual.enabled=true} on Java 21+, and the application's {@link TaskDecorator} (MDC,
     * security context) around each attempt.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.worker.enabled", matchIfMissing = true)
    RunWorker runlaneWorker(
            RunlaneEngine engine,
            ObjectProvider<SimpleAsyncTaskExecutorBuilder> executorBuilder,
            ObjectProvider<TaskDecorator> taskDecorator) {
        SimpleAsyncTaskExecutorBuilder builder = executorBuilder.getIfAvailable(
                () -> new SimpleAsyncTaskExecutorBuilder().taskDecorator(taskDecorator.getIfUnique()));
        SimpleAsyncTaskExecutor handlers =
                builder.threadNamePrefix("runlane-attempt-").build();
        handlers.setDaemon(true);
        RunWorker worker = engine.worker();
        worker.setHandlerExecutor(handlers);
        worker.setAutoStartup(false);
        return worker;
    }

    /** Starts the worker once the application is ready, then stops and starts it with the context (S-EX-28). */
    @Bean
    @ConditionalOnBooleanProperty(name = "runlane.worker.enabled", matchIfMissing = true)
    RunlaneWorkerStarter runlaneWorkerStarter(RunWorker worker) {
        return new RunlaneWorkerStarter(worker);
    }

    /** Runs due runs and waits for them in tests; see {@link RunDrainer}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.worker.enabled", matchIfMissing = true)
    RunDrainer runlaneRunDrainer(RunlaneEngine engine, RunWorker worker, ExecutionSettings execution) {
        List<String> queues = execution.queues().isEmpty()
                ? List.copyOf(engine.settings().queues())
                : List.copyOf(execution.queues());
        return new RunDrainer(engine, worker, queues);
    }

    /** Recovery of expired leases; a lifecycle bean. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.recovery.enabled", matchIfMissing = true)
    MaintenanceService runlaneMaintenance(RunlaneEngine engine) {
        return engine.maintenance();
    }

    /** The automatic pruning job; a lifecycle bean. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.pruning.enabled", matchIfMissing = true)
    PruningService runlanePruning(RunlaneEngine engine) {
        return engine.pruning();
    }

    /**
     * The declared schedules ({@code @Schedule} on task classes, {@code runlane.schedules.<id>.*} on top), validated
     * and written when the context starts: a bad declaration fails start-up naming its class or property (S-SC-5).
     */
    @Bean
    @ConditionalOnMissingBean
    DeclaredSchedules runlaneDeclaredSchedules(RunlaneEngine engine, Environment environment) {
        DeclaredSchedules declared = new DeclaredSchedules(ScheduleAnnotations.merge(
                ScheduleAnnotations.read(engine.tasks()), ConfiguredSchedules.bind(environment)));
        engine.schedules().synchronizeDeclared(declared.declarations());
        return declared;
    }

    /** Fires due schedules (S-SC-2); a lifecycle bean, started after the declared schedules are written. */
    @Bean
    @ConditionalOnMissingBean
    ScheduleFirer runlaneScheduleFirer(RunlaneEngine engine, DeclaredSchedules declared) {
        return engine.schedules().firer();
    }

    /** Calls the application's {@link RunOutcomeListener}s and publishes {@link RunFailedEvent}s. */
    @Bean
    RunOutcomeNotifier runlaneRunOutcomeNotifier(
            ApplicationEventPublisher events,
            ObjectProvider<RunOutcomeListener> listeners,
            ObjectProvider<RunlaneTemplate> template) {
        return new RunOutcomeNotifier(events, listeners, template);
    }

    @Bean
    @ConditionalOnMissingBean
    RunlaneTemplate runlaneTemplate(RunlaneEngine engine) {
        return engine.template();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(jakarta.validation.Validator.class)
    static final class BeanValidationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnSingleCandidate(jakarta.validation.Validator.class)
        PayloadValidator runlanePayloadValidator(jakarta.validation.Validator validator) {
            return new BeanValidationPayloadValidator(validator);
        }
    }
}

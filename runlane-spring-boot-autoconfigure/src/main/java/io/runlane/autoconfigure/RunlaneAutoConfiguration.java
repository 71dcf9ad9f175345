package io.runlane.autoconfigure;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunStatus;
import io.runlane.RunlaneException;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.internal.CompositeEngineListener;
import io.runlane.internal.EngineListener;
import io.runlane.internal.ExecutionSettings;
import io.runlane.internal.PruningSettings;
import io.runlane.internal.RunlaneEngine;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.ScheduleSettings;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schedule.DeclaredSchedules;
import io.runlane.internal.schedule.ScheduleAnnotations;
import io.runlane.internal.schedule.ScheduleFirer;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.trigger.BeanValidationPayloadValidator;
import io.runlane.internal.trigger.PayloadCodec;
import io.runlane.internal.trigger.PayloadValidator;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configures Runlane for the application's single PostgreSQL {@link DataSource}: the schema initializer, the
 * task registry built from {@link Task @Task} beans, and the {@link RunlaneTemplate}.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            "org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration"
        })
@ConditionalOnClass({JdbcClient.class, JsonMapper.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "runlane.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RunlaneProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class RunlaneAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RunlaneSettings runlaneSettings(RunlaneProperties properties) {
        IdempotencyKeyTtl defaultTtl;
        try {
            defaultTtl = IdempotencyKeyTtl.parse(properties.getIdempotency().getDefaultTtl());
        } catch (RunlaneException ex) {
            throw new ConfigurationInvalidException("runlane.idempotency.default-ttl", ex.getMessage(), ex);
        }
        return new RunlaneSettings(
                properties.getEnvironment(),
                properties.getSchema().getName(),
                defaultTtl,
                properties.getRetry().getMaxAttempts(),
                properties.getQueues().keySet());
    }

    @Bean
    @ConditionalOnMissingBean
    ExecutionSettings runlaneExecutionSettings(RunlaneProperties properties) {
        RunlaneProperties.Worker worker = properties.getWorker();
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
                worker.getShutdownTimeout(),
                Set.copyOf(worker.getQueues()),
                properties.getRetry().getInitialBackoff(),
                properties.getRetry().getMaxBackoff(),
                limits,
                properties.getFailures().getMaxMessageLength(),
                properties.getRecovery().getInterval(),
                properties.getRecovery().getBatchSize(),
                worker.getAttemptTimeout(),
                worker.getCancellationGrace());
    }

    @Bean
    @ConditionalOnMissingBean
    PruningSettings runlanePruningSettings(RunlaneProperties properties) {
        RunlaneProperties.Pruning pruning = properties.getPruning();
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
    RunlaneSchemaInitializer runlaneSchemaInitializer(DataSource dataSource, RunlaneSettings settings) {
        return new RunlaneSchemaInitializer(dataSource, settings.schema());
    }

    @Bean
    @ConditionalOnMissingBean
    TaskRegistry runlaneTaskRegistry(ListableBeanFactory beanFactory, RunlaneSettings settings) {
        return TaskBeans.registry(beanFactory, new TaskDefinitionReader(settings));
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
            DataSource dataSource,
            ObjectProvider<PlatformTransactionManager> transactionManager,
            RunlaneSettings settings,
            ExecutionSettings execution,
            PruningSettings pruning,
            ScheduleSettings schedules,
            TaskRegistry tasks,
            PayloadCodec payloads,
            ObjectProvider<EngineListener> listeners) {
        List<EngineListener> all = listeners.orderedStream().toList();
        return new RunlaneEngine(
                dataSource,
                RunlaneTransactionManagerSelector.select(dataSource, transactionManager),
                settings,
                execution,
                pruning,
                schedules,
                tasks,
                payloads,
                CompositeEngineListener.of(all));
    }

    /** The worker; a lifecycle bean, so Spring starts it after every singleton and stops it first (S-EX-8). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "runlane.worker.enabled", matchIfMissing = true)
    RunWorker runlaneWorker(RunlaneEngine engine) {
        return engine.worker();
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

package io.runlane.autoconfigure;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunlaneException;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.internal.RunlaneEngine;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.trigger.BeanValidationPayloadValidator;
import io.runlane.internal.trigger.PayloadCodec;
import io.runlane.internal.trigger.PayloadValidator;
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
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcTransactionManager;
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
            throw new io.runlane.ConfigurationInvalidException(
                    "runlane.idempotency.default-ttl", ex.getMessage(), ex);
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
    @ConditionalOnBooleanProperty(name = "runlane.schema.initialize", matchIfMissing = true)
    RunlaneSchemaInitializer runlaneSchemaInitializer(DataSource dataSource, RunlaneSettings settings) {
        return new RunlaneSchemaInitializer(dataSource, settings.schema());
    }

    @Bean
    @ConditionalOnMissingBean
    TaskRegistry runlaneTaskRegistry(ListableBeanFactory beanFactory, RunlaneSettings settings) {
        TaskDefinitionReader reader = new TaskDefinitionReader(settings);
        return new TaskRegistry(beanFactory.getBeansWithAnnotation(Task.class).values().stream()
                .map(reader::read)
                .toList());
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec runlanePayloadCodec(ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<PayloadValidator> validator) {
        return new PayloadCodec(
                jsonMapper.getIfAvailable(() -> JsonMapper.builder().findAndAddModules().build()),
                validator.getIfAvailable(() -> PayloadValidator.NONE));
    }

    @Bean
    @ConditionalOnMissingBean
    RunlaneEngine runlaneEngine(
            DataSource dataSource,
            ObjectProvider<PlatformTransactionManager> transactionManager,
            RunlaneSettings settings,
            TaskRegistry tasks,
            PayloadCodec payloads) {
        return new RunlaneEngine(
                dataSource,
                transactionManager.getIfUnique(() -> new JdbcTransactionManager(dataSource)),
                settings,
                tasks,
                payloads);
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

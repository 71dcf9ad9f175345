package io.runlane.autoconfigure.console;

import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.autoconfigure.RunlaneProperties.ConsoleShowValues;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.query.RunActivity;
import io.runlane.internal.query.TaskStatistics;
import io.runlane.internal.query.ThrottleBacklogs;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.PayloadValidator;
import io.runlane.internal.worker.RunWorker;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;
import tools.jackson.databind.json.JsonMapper;

/**
 * Serves the Runlane console (S-CO-1) in a servlet web application when {@code runlane.console.enabled=true}: the
 * pages and the JSON API under {@code runlane.console.path}, as one {@link RouterFunction} bean. Ordered after the
 * Runlane auto-configuration so that its engine bean is known.
 */
@AutoConfiguration(afterName = "io.runlane.autoconfigure.RunlaneAutoConfiguration")
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty("runlane.console.enabled")
@ConditionalOnBean(RunlaneEngine.class)
public final class RunlaneConsoleAutoConfiguration {

    @Bean
    ConsoleReads runlaneConsoleReads(
            RunlaneEngine engine,
            DataSource dataSource,
            RunlaneProperties properties,
            Environment springEnvironment,
            ObjectProvider<ExecutionSettings> execution,
            ObjectProvider<RunWorker> worker) {
        JdbcClient jdbc = JdbcClient.create(dataSource);
        SqlTemplate sql = new SqlTemplate(engine.settings().schema());
        String environment = engine.settings().environment();
        return new ConsoleReads(
                engine,
                new RunActivity(jdbc, sql, environment),
                new ConsoleHistory(jdbc, sql, environment),
                settings(properties, springEnvironment),
                execution.getIfUnique(),
                worker.getIfUnique());
    }

    /** The run page's live updates (S-CO-26): one scheduler thread, closed with the context. */
    @Bean
    ConsoleLiveRuns runlaneConsoleLiveRuns(RunlaneEngine engine, DataSource dataSource) {
        return new ConsoleLiveRuns(
                JdbcClient.create(dataSource),
                new SqlTemplate(engine.settings().schema()),
                engine.settings().environment(),
                ConsoleLiveRuns.INTERVAL);
    }

    @Bean
    RouterFunction<ServerResponse> runlaneConsoleRoutes(
            RunlaneEngine engine,
            RunlaneProperties properties,
            Environment environment,
            ConsoleReads reads,
            DataSource dataSource,
            ObjectProvider<PayloadCodec> payloads,
            ConsoleLiveRuns live) {
        ConsoleSettings settings = settings(properties, environment);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        SqlTemplate sql = new SqlTemplate(engine.settings().schema());
        TaskStatistics statistics =
                new TaskStatistics(jdbc, sql, engine.settings().environment());
        ThrottleBacklogs throttleBacklogs =
                new ThrottleBacklogs(jdbc, sql, engine.settings().environment());
        return new ConsoleRoutes(
                        settings,
                        new ConsoleApi(reads),
                        new ConsoleActions(
                                settings,
                                engine.template(),
                                reads,
                                engine.tasks(),
                                payloads.getIfAvailable(() -> new PayloadCodec(
                                                JsonMapper.builder()
                                                        .findAndAddModules()
                                                        .build(),
                                                PayloadValidator.NONE))
                                        .jsonMapper()),
                        new ConsoleRecovery(engine.template(), reads),
                        reads.schedules(),
                        ConsolePage.load(),
                        new ConsoleTasks(engine, statistics, throttleBacklogs),
                        live)
                .routes();
    }

    /**
     * The console's settings; {@code runlane.console.show-values} defaults to the actuator endpoint's {@code
     * management.endpoint.runlane.show-values} (S-CO-13), read here so that the console needs no actuator classes.
     */
    private static ConsoleSettings settings(RunlaneProperties properties, Environment environment) {
        ConsoleShowValues actuator = Binder.get(environment)
                .bind("management.endpoint.runlane.show-values", ConsoleShowValues.class)
                .orElse(null);
        return ConsoleSettings.of(properties.getConsole(), actuator);
    }
}

package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.runlane.RunlaneTemplate;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.autoconfigure.actuate.RunlaneEndpoint;
import io.runlane.autoconfigure.actuate.RunlaneEndpointAutoConfiguration;
import io.runlane.autoconfigure.actuate.RunlaneEndpointWebExtension;
import io.runlane.autoconfigure.actuate.RunlaneHealthAutoConfiguration;
import io.runlane.autoconfigure.actuate.RunlaneHealthIndicator;
import io.runlane.autoconfigure.actuate.RunlaneMetrics;
import io.runlane.autoconfigure.actuate.RunlaneMetricsAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The actuator auto-configurations in an {@link ApplicationContextRunner} on the test PostgreSQL: each backs off
 * without its Spring Boot module, without Runlane, or when turned off, and gives way to the application's own bean.
 */
@RunlaneDatabaseTest
class RunlaneActuatorAutoConfigurationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    private ApplicationContextRunner runner;

    @BeforeEach
    void runner() {
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        RunlaneAutoConfiguration.class,
                        RunlaneEndpointAutoConfiguration.class,
                        RunlaneHealthAutoConfiguration.class,
                        RunlaneMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=2",
                        "runlane.schema.name=" + TestDatabase.freshSchema("actuate_autoconfig"),
                        "runlane.worker.enabled=false",
                        "runlane.recovery.enabled=false",
                        "runlane.pruning.enabled=false");
    }

    @Test
    void endpointIsAbsentUntilExposed() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(RunlaneEndpoint.class);
            assertThat(context).doesNotHaveBean(RunlaneEndpointWebExtension.class);
        });
    }

    @Test
    void endpointAndItsWebExtensionArePresentWhenExposedOverHttp() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=runlane")
                .run(context -> {
                    assertThat(context).hasSingleBean(RunlaneEndpoint.class);
                    assertThat(context).hasSingleBean(RunlaneEndpointWebExtension.class);
                    assertThat(context.getBean(RunlaneEndpoint.class).summary().queues())
                            .containsOnlyKeys("default");
                });
    }

    @Test
    void endpointHasNoWebExtensionWhenExposedOverJmxOnly() {
        runner.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=runlane")
                .run(context -> {
                    assertThat(context).hasSingleBean(RunlaneEndpoint.class);
                    assertThat(context).doesNotHaveBean(RunlaneEndpointWebExtension.class);
                });
    }

    @Test
    void endpointIsAbsentWhenItsAccessIsNone() {
        runner.withPropertyValues(
                        "management.endpoints.web.exposure.include=runlane", "management.endpoint.runlane.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(RunlaneEndpoint.class));
    }

    @Test
    void endpointBacksOffWithoutActuator() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=runlane")
                .withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(RunlaneTemplate.class);
                    assertThat(context).doesNotHaveBean(RunlaneEndpoint.class);
                });
    }

    @Test
    void endpointBacksOffWithoutRunlane() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=runlane", "runlane.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RunlaneEndpoint.class);
                    assertThat(context).doesNotHaveBean(RunlaneHealthIndicator.class);
                    assertThat(context).doesNotHaveBean(RunlaneMetrics.class);
                });
    }

    @Test
    void userDefinedEndpointWins() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=runlane")
                .withUserConfiguration(CustomEndpointConfiguration.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(RunlaneEndpoint.class);
                    assertThat(context).hasBean("customRunlaneEndpoint");
                    assertThat(context.getBean(RunlaneEndpointWebExtension.class))
                            .isNotNull();
                });
    }

    @Test
    void healthIndicatorIsContributedAsRunlane() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RunlaneHealthIndicator.class);
            assertThat(context.getBean("runlaneHealthIndicator")).isInstanceOf(RunlaneHealthIndicator.class);
            Health health = context.getBean(RunlaneHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("backlog", Map.of("waiting", 0L, "due", 0L))
                    .doesNotContainKey("worker");
        });
    }

    @Test
    void healthIndicatorWaitsForTheDatabaseAtMostTheConfiguredTimeout() {
        runner.run(context -> assertThat(context.getBean(RunlaneHealthIndicator.class))
                .extracting("timeout")
                .isEqualTo(Duration.ofSeconds(2)));
        runner.withPropertyValues("runlane.health.timeout=750ms")
                .run(context -> assertThat(context.getBean(RunlaneHealthIndicator.class))
                        .extracting("timeout")
                        .isEqualTo(Duration.ofMillis(750)));
    }

    @Test
    void healthIndicatorIsAbsentWhenDisabled() {
        runner.withPropertyValues("management.health.runlane.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RunlaneHealthIndicator.class));
    }

    @Test
    void healthIndicatorBacksOffWithoutBootsHealthModule() {
        runner.withClassLoader(new FilteredClassLoader(ConditionalOnEnabledHealthIndicator.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RunlaneHealthIndicator.class);
                });
    }

    @Test
    void userDefinedHealthIndicatorWins() {
        runner.withBean(
                        "runlaneHealthIndicator",
                        HealthIndicator.class,
                        () -> () -> Health.outOfService().build())
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RunlaneHealthIndicator.class);
                    assertThat(context.getBean("runlaneHealthIndicator", HealthIndicator.class)
                                    .health()
                                    .getStatus())
                            .isEqualTo(Status.OUT_OF_SERVICE);
                });
    }

    @Test
    void healthIsDownWhenRunlanesTablesCannotBeRead(@FreshSchema("actuate_dropped") String schema) {
        runner.withPropertyValues("runlane.schema.name=" + schema).run(context -> {
            new JdbcTemplate(admin).execute("DROP SCHEMA " + schema + " CASCADE");
            Health health = context.getBean(RunlaneHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains(schema);
        });
    }

    @Test
    void stoppedWorkerCountsOnlyWhileTheApplicationRuns() {
        runner.run(context -> {
            RunlaneEngine engine = context.getBean(RunlaneEngine.class);
            List<String> queues = List.copyOf(engine.settings().queues());

            Health starting = new RunlaneHealthIndicator(
                            engine.statistics(),
                            queues,
                            engine.worker(),
                            null,
                            null,
                            Duration.ofMinutes(1),
                            () -> false)
                    .health();
            Health running = new RunlaneHealthIndicator(
                            engine.statistics(), queues, engine.worker(), null, null, Duration.ofMinutes(1), () -> true)
                    .health();

            assertThat(starting.getStatus()).isEqualTo(Status.UP);
            assertThat(running.getStatus()).isEqualTo(Status.DOWN);
            assertThat(running.getDetails()).containsEntry("problems", List.of("the worker has stopped"));
        });
    }

    @Test
    void metricsAreAbsentWithoutAMeterRegistry() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(RunlaneMetrics.class);
        });
    }

    @Test
    void metricsBackOffWithoutMicrometer() {
        runner.withBean(SimpleMeterRegistry.class)
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).doesNotHaveBean(RunlaneMetrics.class));
    }

    @Test
    void metricsUseBootsMeterRegistryAndHearTheEngine() {
        runner.withConfiguration(AutoConfigurations.of(
                        MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .withBean(SendMail.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(RunlaneMetrics.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);

                    context.getBean(RunlaneTemplate.class).trigger(SendMail.class, new SendMail.Payload("a@b.c"));

                    assertThat(registry.get("runlane.triggers")
                                    .tags("task", "mail.send", "outcome", "created")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("runlane.queue.depth")
                                    .tag("queue", "default")
                                    .gauge()
                                    .value())
                            .isEqualTo(1);
                });
    }

    @Test
    void userDefinedMetricsWin() {
        runner.withBean(SimpleMeterRegistry.class)
                .withUserConfiguration(CustomMetricsConfiguration.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(RunlaneMetrics.class);
                    assertThat(context).hasBean("customRunlaneMetrics");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomEndpointConfiguration {

        @Bean
        RunlaneEndpoint customRunlaneEndpoint(RunlaneEngine engine) {
            return new RunlaneEndpoint(engine, null, null, null, null);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomMetricsConfiguration {

        @Bean
        RunlaneMetrics customRunlaneMetrics(MeterRegistry registry) {
            return new RunlaneMetrics(registry, List.of("default"), Map::of, Duration.ofMinutes(1));
        }
    }
}

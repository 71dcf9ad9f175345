package io.runlane.autoconfigure.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.RunlaneSettings;
import java.time.Duration;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures {@link RunlaneMetrics} when Micrometer is present and the application has a {@link MeterRegistry}.
 *
 * <p>The meters are an engine listener, and the engine takes its listeners when it is created. That needs no
 * particular order: every auto-configuration registers its bean definitions before any singleton is created, and
 * the engine's factory method asks for all {@code EngineListener} beans, which creates this one then. So this
 * configuration comes after {@link RunlaneAutoConfiguration} and the meter registry configurations, where its
 * conditions can see the engine and the registry. The meters must not depend on the engine (it depends on them):
 * the gauges look it up lazily, when they are first read.
 */
@AutoConfiguration(
        after = RunlaneAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, RunlaneEngine.class})
public final class RunlaneMetricsAutoConfiguration {

    /** How long the queue gauges reuse one statistics query. */
    static final Duration STATISTICS_REFRESH = Duration.ofSeconds(5);

    @Bean
    @ConditionalOnMissingBean
    RunlaneMetrics runlaneMetrics(
            MeterRegistry registry, RunlaneSettings settings, ObjectProvider<RunlaneEngine> engine) {
        List<String> queues = List.copyOf(settings.queues());
        return new RunlaneMetrics(
                registry, queues, () -> engine.getObject().statistics().byQueue(queues), STATISTICS_REFRESH);
    }
}

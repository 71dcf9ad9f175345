package io.runlane.autoconfigure.actuate;

import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures the {@code runlane} {@link RunlaneHealthIndicator health indicator} when Spring Boot's health module
 * is present and Runlane is configured; {@code management.health.runlane.enabled=false} turns it off. Ordered after
 * {@link RunlaneAutoConfiguration} so that its engine, worker and maintenance beans are known.
 */
@AutoConfiguration(after = RunlaneAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnEnabledHealthIndicator.class)
@ConditionalOnBean(RunlaneEngine.class)
@ConditionalOnEnabledHealthIndicator("runlane")
public final class RunlaneHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = {"runlaneHealthIndicator", "runlaneHealthContributor"})
    RunlaneHealthIndicator runlaneHealthIndicator(
            RunlaneEngine engine,
            ObjectProvider<ExecutionSettings> execution,
            ObjectProvider<RunWorker> worker,
            ObjectProvider<MaintenanceService> recovery,
            ObjectProvider<PruningService> pruning,
            ObjectProvider<RunlaneProperties> properties,
            ConfigurableApplicationContext context) {
        RunlaneProperties configured = properties.getIfAvailable();
        return new RunlaneHealthIndicator(
                engine.statistics(),
                List.copyOf(engine.settings().queues()),
                worker.getIfUnique(),
                recovery.getIfUnique(),
                pruning.getIfUnique(),
                maxPollAge(execution.getIfAvailable(ExecutionSettings::defaults).pollInterval()),
                context::isRunning,
                configured == null
                        ? RunlaneHealthIndicator.DEFAULT_TIMEOUT
                        : configured.getHealth().getTimeout(),
                () -> engine.schedules().overdue(RunlaneHealthIndicator.OVERDUE_SCHEDULE_POLLS));
    }

    /** A worker that has not completed a poll for ten poll intervals, and at least a minute, is stuck. */
    static Duration maxPollAge(Duration pollInterval) {
        Duration tenPolls = pollInterval.multipliedBy(10);
        return (tenPolls.compareTo(Duration.ofMinutes(1)) > 0) ? tenPolls : Duration.ofMinutes(1);
    }
}

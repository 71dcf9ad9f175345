package io.runlane.autoconfigure.actuate;

import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.worker.RunWorker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures the {@link RunlaneEndpoint runlane endpoint} when actuator is present, Runlane is configured and
 * the endpoint is available (accessible and exposed, {@code management.endpoints.web.exposure.include=runlane}).
 * Ordered after {@link RunlaneAutoConfiguration} so that its engine bean is known.
 */
@AutoConfiguration(after = RunlaneAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(RunlaneEngine.class)
@ConditionalOnAvailableEndpoint(RunlaneEndpoint.class)
@EnableConfigurationProperties(RunlaneEndpointProperties.class)
public final class RunlaneEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RunlaneEndpoint runlaneEndpoint(
            RunlaneEngine engine,
            ObjectProvider<ExecutionSettings> execution,
            ObjectProvider<RunWorker> worker,
            ObjectProvider<MaintenanceService> recovery,
            ObjectProvider<PruningService> pruning,
            RunlaneEndpointProperties properties) {
        return new RunlaneEndpoint(
                engine,
                execution.getIfUnique(),
                worker.getIfUnique(),
                recovery.getIfUnique(),
                pruning.getIfUnique(),
                properties.getShowValues());
    }

    /** Maps refused write operations to HTTP statuses; only when the endpoint is exposed over HTTP. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RunlaneEndpoint.class)
    @ConditionalOnAvailableEndpoint(endpoint = RunlaneEndpoint.class, exposure = EndpointExposure.WEB)
    RunlaneEndpointWebExtension runlaneEndpointWebExtension(
            RunlaneEndpoint endpoint, RunlaneEndpointProperties properties) {
        return new RunlaneEndpointWebExtension(endpoint, properties.getShowValues(), properties.getRoles());
    }
}

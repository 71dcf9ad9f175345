package io.runlane.autoconfigure.actuate;

import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configures the {@link RunlaneSchedulesEndpoint runlaneschedules endpoint} when actuator is present, Runlane is
 * configured and the endpoint is available ({@code management.endpoints.web.exposure.include=runlaneschedules}).
 */
@AutoConfiguration(after = RunlaneAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(RunlaneEngine.class)
@ConditionalOnAvailableEndpoint(RunlaneSchedulesEndpoint.class)
public final class RunlaneSchedulesEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RunlaneSchedulesEndpoint runlaneSchedulesEndpoint(RunlaneEngine engine, ObjectProvider<JsonMapper> jsonMapper) {
        return new RunlaneSchedulesEndpoint(
                engine.template().schedules(),
                jsonMapper.getIfAvailable(
                        () -> JsonMapper.builder().findAndAddModules().build()));
    }

    /** Maps refused write operations to HTTP statuses; only when the endpoint is exposed over HTTP. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RunlaneSchedulesEndpoint.class)
    @ConditionalOnAvailableEndpoint(endpoint = RunlaneSchedulesEndpoint.class, exposure = EndpointExposure.WEB)
    RunlaneSchedulesEndpointWebExtension runlaneSchedulesEndpointWebExtension(RunlaneSchedulesEndpoint endpoint) {
        return new RunlaneSchedulesEndpointWebExtension(endpoint);
    }
}

package io.runlane.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.runlane.RunlaneTemplate;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.RunlaneEngine;
import io.runlane.internal.worker.RunWorker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Observes triggers ({@code runlane.trigger}) and attempts ({@code runlane.attempt}) through the application's
 * {@link ObservationRegistry}. The trace context is not stored with the run yet, so an attempt starts a trace of its
 * own instead of continuing the trigger's.
 */
@AutoConfiguration(
        after = RunlaneAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ObservationRegistry.class, RunlaneEngine.class})
public final class RunlaneObservationAutoConfiguration {

    /** Wraps the {@link RunlaneTemplate} bean, so application code's triggers are observed. */
    @Bean
    static BeanPostProcessor runlaneTriggerObservation(ObjectProvider<ObservationRegistry> registry) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof RunlaneTemplate template && !(bean instanceof ObservedRunlaneTemplate)) {
                    return new ObservedRunlaneTemplate(template, registry.getObject());
                }
                return bean;
            }
        };
    }

    /** Observes handler calls; set before the worker starts on {@code ApplicationReadyEvent}. */
    @Bean
    SmartInitializingSingleton runlaneAttemptObservation(
            ObjectProvider<RunWorker> worker, ObservationRegistry registry) {
        return () -> worker.ifAvailable(
                runWorker -> runWorker.setHandlerInvocation(new ObservedHandlerInvocation(registry)));
    }
}

package io.runlane.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.runlane.RunlaneTemplate;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
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
 * {@link ObservationRegistry}. The trigger's context is a {@code SenderContext} and the attempt's a {@code
 * ReceiverContext}, both carrying the run's propagation headers: with Micrometer Tracing on the class path, Boot's
 * propagating tracing handlers write the trigger span's headers, the run stores them, and the attempt's span
 * continues that trace as the trigger span's child (S-MO-9). No dependency on Micrometer Tracing here.
 */
@AutoConfiguration(
        after = RunlaneAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ObservationRegistry.class, RunlaneEngine.class})
public final class RunlaneObservationAutoConfiguration {

    /**
     * Wraps the {@link RunlaneTemplate} bean, so application code's triggers are observed, and has the engine store
     * the trace context of those triggers with their runs (S-MO-9).
     */
    @Bean
    static BeanPostProcessor runlaneTriggerObservation(ObjectProvider<ObservationRegistry> registry) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof RunlaneTemplate template && !(bean instanceof ObservedRunlaneTemplate)) {
                    return new ObservedRunlaneTemplate(template, registry.getObject());
                }
                if (bean instanceof RunlaneEngine engine) {
                    engine.setTraceContextCapture(new ObservedTraceContextCapture(registry.getObject()));
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

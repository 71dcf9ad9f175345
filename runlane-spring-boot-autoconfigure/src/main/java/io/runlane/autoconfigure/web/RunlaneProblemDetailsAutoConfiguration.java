package io.runlane.autoconfigure.web;

import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.engine.RunlaneEngine;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Opt-in ({@code runlane.web.problem-details.enabled=true}, like Boot's {@code spring.mvc.problemdetails.enabled}):
 * maps Runlane's exceptions to problem details in a servlet MVC application, so that applications need not copy the
 * sample's handler. Replace it by declaring a {@link RunlaneProblemDetailsExceptionHandler} bean.
 */
@AutoConfiguration(after = RunlaneAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(RunlaneEngine.class)
@ConditionalOnBooleanProperty("runlane.web.problem-details.enabled")
public final class RunlaneProblemDetailsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RunlaneProblemDetailsExceptionHandler runlaneProblemDetailsExceptionHandler() {
        return new RunlaneProblemDetailsExceptionHandler();
    }
}

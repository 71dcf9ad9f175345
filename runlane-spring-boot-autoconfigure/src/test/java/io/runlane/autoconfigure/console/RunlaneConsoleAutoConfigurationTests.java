package io.runlane.autoconfigure.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.ConfigurationInvalidException;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.autoconfigure.RunlaneProperties.ConsoleShowValues;
import io.runlane.internal.engine.RunlaneEngine;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.function.RouterFunction;

/** How the console's auto-configuration reads its properties and when it backs off (S-CO-1). */
class RunlaneConsoleAutoConfigurationTests {

    private static final AutoConfigurations CONSOLE = AutoConfigurations.of(RunlaneConsoleAutoConfiguration.class);

    @Test
    void theAccessDefaultsToReadOnlyAndThePathToRunlane() {
        RunlaneProperties.Console console = new RunlaneProperties().getConsole();

        assertThat(console.isEnabled()).isFalse();
        assertThat(console.getPath()).isEqualTo("/runlane");
        assertThat(console.getAccess()).isEqualTo(RunlaneProperties.ConsoleAccess.READ_ONLY);
    }

    @Test
    void aPathThatIsNotOneIsRejectedNamingTheProperty() {
        for (String path : new String[] {"runlane", "/", "/ops/**", "/{x}"}) {
            RunlaneProperties properties = new RunlaneProperties();
            properties.getConsole().setPath(path);
            assertThatExceptionOfType(ConfigurationInvalidException.class)
                    .isThrownBy(() -> ConsoleSettings.of(properties.getConsole()))
                    .withMessageContaining("runlane.console.path");
        }
    }

    @Test
    @DisplayName("S-CO-13: show-values defaults to the actuator's show-values, and to never when neither is set")
    void showValuesDefaultsToTheActuatorsAndThenToNever() {
        RunlaneProperties properties = new RunlaneProperties();

        assertThat(ConsoleSettings.of(properties.getConsole()).values().mode()).isEqualTo(ConsoleShowValues.NEVER);
        assertThat(ConsoleSettings.of(properties.getConsole(), ConsoleShowValues.WHEN_AUTHORIZED)
                        .values()
                        .mode())
                .isEqualTo(ConsoleShowValues.WHEN_AUTHORIZED);
        properties.getConsole().setShowValues(ConsoleShowValues.ALWAYS);
        assertThat(ConsoleSettings.of(properties.getConsole(), ConsoleShowValues.NEVER)
                        .values()
                        .mode())
                .isEqualTo(ConsoleShowValues.ALWAYS);
    }

    @Test
    void theConsoleBacksOffOutsideAServletWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(CONSOLE)
                .withPropertyValues("runlane.console.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(RouterFunction.class));
    }

    @Test
    void theConsoleBacksOffWithoutRunlane() {
        new WebApplicationContextRunner()
                .withConfiguration(CONSOLE)
                .withPropertyValues("runlane.console.enabled=true")
                .run(context ->
                        assertThat(context).doesNotHaveBean(RunlaneEngine.class).doesNotHaveBean(RouterFunction.class));
    }
}

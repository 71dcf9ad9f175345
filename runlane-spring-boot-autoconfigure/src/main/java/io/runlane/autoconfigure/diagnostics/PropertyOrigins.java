package io.runlane.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/** Finds where a property was set (a file and line, a command-line argument), for a report to point at it. */
final class PropertyOrigins {

    private PropertyOrigins() {}

    /** The origin of the property, or {@code null} when it is not set or the name is not a property name. */
    static @Nullable Origin find(Environment environment, String property) {
        if (!ConfigurationPropertyName.isValid(property)) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                return found.getOrigin();
            }
        }
        return null;
    }

    /** Whether the property is set anywhere in the environment. */
    static boolean isSet(Environment environment, String property) {
        if (!ConfigurationPropertyName.isValid(property)) {
            return false;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.getConfigurationProperty(name) != null) {
                return true;
            }
        }
        return false;
    }
}

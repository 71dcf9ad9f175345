package io.runlane.autoconfigure.console;

import io.runlane.ConfigurationInvalidException;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.autoconfigure.RunlaneProperties.ConsoleAccess;
import io.runlane.autoconfigure.RunlaneProperties.ConsoleShowValues;
import org.jspecify.annotations.Nullable;

/**
 * The console's validated configuration.
 *
 * @param path where the console is served: starts with {@code /}, no trailing {@code /}
 * @param unrestricted whether the operator actions are offered (S-CO-2)
 * @param values when the values runs carry are shown (S-CO-13)
 */
record ConsoleSettings(String path, boolean unrestricted, ConsoleValues values) {

    static ConsoleSettings of(RunlaneProperties.Console console) {
        return of(console, null);
    }

    /**
     * @param actuatorShowValues {@code management.endpoint.runlane.show-values}, the default of {@code
     *     runlane.console.show-values}; {@code null} when unset, and then values are never shown
     */
    static ConsoleSettings of(RunlaneProperties.Console console, @Nullable ConsoleShowValues actuatorShowValues) {
        String path = console.getPath().trim();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.isEmpty() || !path.startsWith("/") || path.contains("*") || path.contains("{")) {
            throw new ConfigurationInvalidException(
                    "runlane.console.path",
                    "'" + console.getPath() + "' is not a path such as /runlane (starting with '/', not the root,"
                            + " without patterns)");
        }
        ConsoleShowValues show = (console.getShowValues() != null)
                ? console.getShowValues()
                : (actuatorShowValues != null) ? actuatorShowValues : ConsoleShowValues.NEVER;
        return new ConsoleSettings(
                path, console.getAccess() == ConsoleAccess.UNRESTRICTED, new ConsoleValues(show, console.getRoles()));
    }

    /** The access mode as the pages name it. */
    String access() {
        return unrestricted ? "unrestricted" : "read-only";
    }
}

package io.runlane.autoconfigure.console;

import io.runlane.ConfigurationInvalidException;
import io.runlane.autoconfigure.RunlaneProperties;
import io.runlane.autoconfigure.RunlaneProperties.ConsoleAccess;

/**
 * The console's validated configuration.
 *
 * @param path where the console is served: starts with {@code /}, no trailing {@code /}
 * @param unrestricted whether the operator actions are offered (S-CO-2)
 */
record ConsoleSettings(String path, boolean unrestricted) {

    static ConsoleSettings of(RunlaneProperties.Console console) {
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
        return new ConsoleSettings(path, console.getAccess() == ConsoleAccess.UNRESTRICTED);
    }

    /** The access mode as the pages name it. */
    String access() {
        return unrestricted ? "unrestricted" : "read-only";
    }
}

package io.runlane.autoconfigure.diagnostics;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

/**
 * The host, port, database and user that {@code spring.datasource.url} and {@code spring.datasource.username} name,
 * for a report to echo what was tried. The password is never read, and a {@code password} parameter of the URL is
 * left out.
 *
 * @param host the host, or hosts of a multi-host URL, as written
 * @param port the port, {@code 5432} when the URL gives none
 * @param database the database, or {@code null} when the URL names none (PostgreSQL then uses the user's name)
 * @param user the user, or {@code null} when neither property nor URL names one
 */
record DatabaseTarget(
        String host,
        String port,
        @Nullable String database,
        @Nullable String user) {

    private static final String PREFIX = "jdbc:postgresql:";

    /** What the environment's DataSource properties name, or {@code null} without a PostgreSQL URL. */
    static @Nullable DatabaseTarget of(Environment environment) {
        String url = environment.getProperty("spring.datasource.url");
        if (url == null || !url.startsWith(PREFIX)) {
            return null;
        }
        String rest = url.substring(PREFIX.length());
        String query = "";
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        String host = "localhost";
        String port = "5432";
        String database = rest;
        if (rest.startsWith("//")) {
            String authority = rest.substring(2);
            int slash = authority.indexOf('/');
            database = slash >= 0 ? authority.substring(slash + 1) : "";
            authority = slash >= 0 ? authority.substring(0, slash) : authority;
            int colon = authority.lastIndexOf(':');
            if (!authority.contains(",") && colon > authority.lastIndexOf(']')) {
                host = authority.substring(0, colon);
                port = authority.substring(colon + 1);
            } else if (!authority.isEmpty()) {
                host = authority;
            }
        }
        String user = environment.getProperty("spring.datasource.username");
        for (String parameter : query.split("&")) {
            if (user == null && parameter.startsWith("user=")) {
                user = parameter.substring("user=".length());
            }
        }
        return new DatabaseTarget(host, port, database.isEmpty() ? null : database, user);
    }

    /** {@code host localhost, port 5432, database orders, user app}. */
    String describe() {
        List<String> parts = new ArrayList<>();
        parts.add("host " + host);
        parts.add("port " + port);
        parts.add("database " + (database != null ? database : "(the user's name)"));
        if (user != null) {
            parts.add("user " + user);
        }
        return String.join(", ", parts) + " (from spring.datasource.url and spring.datasource.username)";
    }

    /** {@code localhost:5432}. */
    String address() {
        return host + ":" + port;
    }
}

package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A healthy first start logs no {@code ERROR} on the database server (issue 31, item 5): Liquibase probed its lock
 * table with a query before creating it, so every fresh start on an empty database left {@code ERROR: relation
 * "runlane.runlane_changelog_lock" does not exist} in PostgreSQL's log. The test starts a PostgreSQL of its own whose
 * log goes to a file (any server given by {@code RUNLANE_TEST_JDBC_URL} keeps its log to itself), and marks the end
 * of the start with a {@code RAISE LOG} line: the server writes its log in order, so once the marker is there every
 * line the start caused is too.
 */
class SchemaFirstStartServerLogIntegrationTests {

    @Test
    @DisplayName("Issue 31.5: a first start on an empty database, and a restart, leave no ERROR in the server's log")
    void firstStartAndRestartLogNoServerError(@TempDir Path directory) throws IOException, SQLException {
        Path log = directory.resolve("postgres.log");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start()) {
            DataSource dataSource = postgres.getPostgresDatabase();

            new RunlaneSchemaInitializer(dataSource, "runlane").initialize();
            markEnd(dataSource, log, "first start");
            new RunlaneSchemaInitializer(dataSource, "runlane").initialize();
            markEnd(dataSource, log, "restart");

            List<String> lines = Files.readAllLines(log);
            assertThat(lines).anyMatch(line -> line.contains("runlane-marker: restart"));
            assertThat(lines)
                    .as("the server's log of a first start and a restart")
                    .noneMatch(line -> line.contains("ERROR") || line.contains("does not exist"));
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                assertThat(statement.executeQuery("SELECT count(*) FROM runlane.runlane_changelog"))
                        .satisfies(result -> {
                            result.next();
                            assertThat(result.getLong(1)).isPositive();
                        });
            }
        }
    }

    /** Writes a marker into the server's log and waits until it is there, so every earlier line is too. */
    private static void markEnd(DataSource dataSource, Path log, String label) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DO $$ BEGIN RAISE LOG 'runlane-marker: " + label + "'; END $$");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(log).contains("runlane-marker: " + label));
    }
}

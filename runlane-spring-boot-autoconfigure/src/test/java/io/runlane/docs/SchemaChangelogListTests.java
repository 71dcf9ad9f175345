package io.runlane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.internal.schema.RunlaneChangelog;
import io.runlane.internal.schema.RunlaneChangelog.ChangelogFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The list of changelog files for Flyway users in {@code docs/schema.md} is checked against
 * {@code changelog-master.xml}, which is what Liquibase and the start-up check read, so that a release adding a
 * changeset cannot forget to list it (issue 15, item 3: the list once missed {@code 004-implicit-creation-event.sql}).
 */
class SchemaChangelogListTests {

    private static final Pattern LIST =
            Pattern.compile("<!-- runlane-changelog-files -->(.*?)<!-- /runlane-changelog-files -->", Pattern.DOTALL);

    private static final Pattern FILE = Pattern.compile("`([^`]+\\.sql)`");

    @Test
    @DisplayName("Issue 15.3: docs/schema.md lists exactly the changelog's files, in order")
    void schemaPageListsEveryFileOfTheChangelogInOrder() throws IOException {
        Matcher list = LIST.matcher(Files.readString(Path.of("..", "docs", "schema.md")));
        assertThat(list.find())
                .as("the marked list of changelog files in docs/schema.md")
                .isTrue();
        List<String> listed =
                FILE.matcher(list.group(1)).results().map(file -> file.group(1)).toList();

        assertThat(listed).containsExactlyElementsOf(changelogFiles());
    }

    @Test
    @DisplayName("Issue 15.3: every file of db/runlane/changes is included by changelog-master.xml")
    void everyChangeFileIsIncludedByTheMasterChangelog() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/runlane/changes"))) {
            assertThat(files.map(file -> file.getFileName().toString()).sorted())
                    .containsExactlyElementsOf(changelogFiles());
        }
    }

    private static List<String> changelogFiles() {
        return RunlaneChangelog.load().files().stream().map(ChangelogFile::name).toList();
    }
}

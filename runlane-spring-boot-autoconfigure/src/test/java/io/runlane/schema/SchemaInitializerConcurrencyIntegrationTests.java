package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Instances of an application starting together on an empty schema each run the initializer on their own connection
 * pool; one of them creates the schema and the others find it complete.
 */
@RunlaneDatabaseTest
class SchemaInitializerConcurrencyIntegrationTests {

    private static final int INSTANCES = 4;

    @Pool(size = 2)
    private static HikariDataSource admin;

    private static final List<HikariDataSource> instances = new ArrayList<>();

    private static List<String> completeTables;

    private static List<String> completeChangelog;

    @BeforeAll
    static void initializeAReferenceSchemaAlone(@FreshSchema("schema_reference") String reference) {
        for (int i = 0; i < INSTANCES; i++) {
            instances.add(TestDatabase.newDataSource(1));
        }
        new RunlaneSchemaInitializer(admin, reference).initialize();
        completeTables = tables(reference);
        completeChangelog = changelog(reference);
    }

    @AfterAll
    static void closeDataSources() {
        instances.forEach(HikariDataSource::close);
    }

    @RepeatedTest(10)
    @DisplayName("Finding 11: four instances starting at once on an empty schema all start, and the schema is complete")
    void instancesStartingTogetherOnAnEmptySchemaAllSucceed(@FreshSchema("schema_race") String schema) {
        List<Concurrently.Outcome<String>> outcomes = Concurrently.run(INSTANCES, i -> () -> {
            DataSource instance = instances.get(i);
            new RunlaneSchemaInitializer(instance, schema).initialize();
            return schema;
        });

        assertThat(outcomes)
                .as("every instance starts")
                .allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
        assertThat(tables(schema)).isEqualTo(completeTables);
        assertThat(changelog(schema)).as("each changeset applied once").isEqualTo(completeChangelog);
    }

    private static List<String> tables(String schema) {
        return new JdbcTemplate(admin)
                .queryForList(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY 1",
                        String.class,
                        schema);
    }

    private static List<String> changelog(String schema) {
        return new JdbcTemplate(admin)
                .queryForList(
                        "SELECT id || ' ' || author FROM " + schema + "." + RunlaneSchemaInitializer.CHANGELOG_TABLE
                                + " ORDER BY orderexecuted",
                        String.class);
    }
}

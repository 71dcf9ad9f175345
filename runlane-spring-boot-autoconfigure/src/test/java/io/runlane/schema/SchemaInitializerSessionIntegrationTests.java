package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The initializer borrows one pooled connection; it must hand it back as it found it. */
@RunlaneDatabaseTest
class SchemaInitializerSessionIntegrationTests {

    @Test
    @DisplayName("Issue 15.3: applying the schema leaves the pooled connection's search_path as it was")
    void initializerRestoresTheSearchPathOfItsConnection(
            @Pool(size = 1) HikariDataSource dataSource, @FreshSchema("session_state") String schema) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String before = jdbc.queryForObject("SELECT current_setting('search_path')", String.class);

        new RunlaneSchemaInitializer(dataSource, schema).initialize();

        assertThat(jdbc.queryForObject("SELECT current_setting('search_path')", String.class))
                .as("the pool's only connection, after the initializer used it")
                .isEqualTo(before)
                .doesNotContain(schema);
    }
}

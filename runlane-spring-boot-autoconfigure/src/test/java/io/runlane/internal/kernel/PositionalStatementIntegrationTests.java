package io.runlane.internal.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import java.sql.Types;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.ColumnMapRowMapper;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * A statement with named parameters, bound by position: the text the driver prepares is the one Spring's
 * named-parameter support sends, and each value arrives with its declared type, {@code null}s included (S-OP-13).
 */
@RunlaneDatabaseTest
class PositionalStatementIntegrationTests {

    private static final StatementParameters PARAMETERS = StatementParameters.builder()
            .add("id", Types.OTHER)
            .add("label", Types.VARCHAR)
            .add("count", Types.BIGINT)
            .add("names", SqlTypeValue.TYPE_UNKNOWN)
            .build();

    private static final String STATEMENT = """
            SELECT cast(:id AS uuid) AS id, :label AS label, cast(:label AS text) IS NULL AS no_label,
                   :count::bigint + 1 AS next, ':count is text' AS quoted,
                   'b' IN (:names) AS has_b -- a comment naming :id
            """;

    @Pool(size = 1)
    private HikariDataSource dataSource;

    private JdbcTemplate jdbc;

    @BeforeEach
    void start() {
        jdbc = new JdbcTemplate(dataSource);
    }

    @Test
    @DisplayName("S-OP-13: the positional text is the one Spring's named parameters send, lists expanded")
    void thePositionalTextIsSpringsOwn() {
        PositionalStatement statement =
                PositionalStatement.forValues(STATEMENT, PARAMETERS.values().set("names", List.of("a", "b", "c")));

        String springs = NamedParameterUtils.substituteNamedParameters(
                STATEMENT,
                new MapSqlParameterSource()
                        .addValue("id", null)
                        .addValue("label", null)
                        .addValue("count", null)
                        .addValue("names", List.of("a", "b", "c")));
        assertThat(statement.sql()).isEqualTo(springs).contains("IN (?, ?, ?)");
    }

    @Test
    @DisplayName("S-OP-13: values are bound with their declared types, null included, by JdbcTemplate and JdbcClient")
    void valuesAreBoundWithTheirTypes() {
        UUID id = UUID.randomUUID();
        PositionalStatement statement =
                PositionalStatement.forValues(STATEMENT, PARAMETERS.values().set("names", List.of("a", "b")));
        StatementParameters.Values values = PARAMETERS
                .values()
                .set("id", id)
                .set("label", null)
                .set("count", 41L)
                .set("names", List.of("a", "b"));

        Map<String, Object> row = jdbc.query(statement.sql(), statement.setter(values), new ColumnMapRowMapper())
                .get(0);
        Map<String, Object> viaClient = JdbcClient.create(dataSource)
                .sql(statement.sql())
                .params(statement.arguments(values))
                .query()
                .singleRow();

        for (Map<String, Object> answer : List.of(row, viaClient)) {
            assertThat(answer)
                    .containsEntry("id", id)
                    .containsEntry("no_label", true)
                    .containsEntry("next", 42L)
                    .containsEntry("quoted", ":count is text")
                    .containsEntry("has_b", true);
            assertThat(answer.get("label")).isNull();
        }
    }

    @Test
    @DisplayName("Values of other parameters, undeclared parameters, lists of another length and values that need"
            + " freeing are refused")
    void misfitsAreRefused() {
        PositionalStatement statement =
                PositionalStatement.forValues(STATEMENT, PARAMETERS.values().set("names", List.of("a")));
        StatementParameters others =
                StatementParameters.builder().addAll(PARAMETERS).build();

        assertThatThrownBy(() -> statement.setter(others.values().set("names", List.of("a"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> statement.setter(PARAMETERS.values().set("names", List.of("a", "b"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'names'");
        assertThatThrownBy(() -> PositionalStatement.of(STATEMENT + " AND :other", PARAMETERS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'other'");
        assertThatThrownBy(() -> PositionalStatement.of(STATEMENT, PARAMETERS)
                        .setter(PARAMETERS.values().set("names", List.of("a"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("single value");
        assertThatThrownBy(() -> PARAMETERS.values().set("label", new SqlArrayValue("text", "a")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PARAMETERS.values().set("missing", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PositionalStatement.forValues(
                        STATEMENT, PARAMETERS.values().set("names", List.of(new Object[] {"a", 1}, new Object[] {"b", 2
                        }))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tuples");
    }
}

package io.runlane.internal.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import java.sql.Array;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PGobject;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Arrays sent as {@link ArrayParameters}: the text and type the driver sends for an array from {@code
 * Connection.createArrayOf}, and the elements arrive as they were, quotes, backslashes, braces, commas and
 * {@code NULL}s included.
 */
@RunlaneDatabaseTest
class ArrayParametersIntegrationTests {

    private static final List<String> AWKWARD = Arrays.asList(
            "plain", "", " spaced ", "quote\"d", "back\\slash", "{braced}", "a,b", "NULL", null, "ünïcødé ✓", "'");

    @Pool(size = 1)
    private HikariDataSource dataSource;

    private JdbcTemplate jdbc;

    @BeforeEach
    void start() {
        jdbc = new JdbcTemplate(dataSource);
    }

    @Test
    @DisplayName("Text elements arrive as they were, in order, NULL included")
    void textsArriveAsTheyWere() {
        List<String> elements = jdbc.query(
                "SELECT e FROM unnest(?) WITH ORDINALITY AS t(e, n) ORDER BY n",
                (rs, rowNum) -> rs.getString(1),
                ArrayParameters.texts(AWKWARD));

        assertThat(elements).containsExactlyElementsOf(AWKWARD);
    }

    @Test
    @DisplayName("Ids and numbers arrive as uuid[] and int8[]")
    void idsAndNumbersArriveTyped() {
        List<UUID> ids = List.of(UUID.randomUUID(), UUID.randomUUID());

        assertThat(jdbc.queryForObject(
                        "SELECT pg_typeof(?)::text || ' ' || pg_typeof(?)::text || ' ' || pg_typeof(?)::text",
                        String.class,
                        ArrayParameters.uuids(ids),
                        ArrayParameters.longs(new long[] {1}),
                        ArrayParameters.texts(List.of("a"))))
                .isEqualTo("uuid[] bigint[] text[]");
        assertThat(jdbc.queryForList("SELECT unnest(?)", UUID.class, ArrayParameters.uuids(ids)))
                .containsExactlyElementsOf(ids);
        assertThat(jdbc.queryForList(
                        "SELECT unnest(?)", Long.class, ArrayParameters.longs(new long[] {Long.MIN_VALUE, 0, 7})))
                .containsExactly(Long.MIN_VALUE, 0L, 7L);
        assertThat(jdbc.queryForObject("SELECT cardinality(?)", Integer.class, ArrayParameters.uuids(List.of())))
                .isZero();
    }

    @Test
    @DisplayName("The text is the driver's own for an array from createArrayOf")
    void theTextIsTheDriversOwn() throws Exception {
        List<UUID> ids = List.of(UUID.randomUUID(), UUID.randomUUID());
        try (Connection connection = dataSource.getConnection()) {
            assertSame(ArrayParameters.texts(AWKWARD), connection.createArrayOf("text", AWKWARD.toArray()));
            assertSame(ArrayParameters.uuids(ids), connection.createArrayOf("uuid", ids.toArray()));
            List<Object> longs = new ArrayList<>(List.of(3L, -4L));
            assertSame(ArrayParameters.longs(new long[] {3, -4}), connection.createArrayOf("bigint", longs.toArray()));
        }
    }

    private static void assertSame(PGobject ours, Array drivers) throws Exception {
        assertThat(ours.getValue()).isEqualTo(drivers.toString());
    }
}

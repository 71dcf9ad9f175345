package io.runlane.internal.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * S-OP-13: an optional time or id sent as text and cast by the statement is the value the driver stored when it
 * bound the typed value itself: rounded half up to the microsecond, years past 9999 included.
 */
@RunlaneDatabaseTest
class TextParametersIntegrationTests {

    @Pool(size = 1)
    private HikariDataSource dataSource;

    private JdbcTemplate jdbc;

    @BeforeEach
    void start() {
        jdbc = new JdbcTemplate(dataSource);
    }

    @ParameterizedTest(name = "S-OP-13: {0} sent as text is the time the driver binds")
    @ValueSource(
            strings = {
                "2026-12-01T02:11:11.123456499Z",
                "2026-12-01T02:11:11.123456500Z",
                "2026-12-31T23:59:59.999999500Z",
                "1970-01-01T00:00:00Z",
                "+10000-01-01T00:00:00.000001Z",
                "+294276-12-31T23:59:59.999999Z"
            })
    void aTimeAsTextIsTheTimeTheDriverBinds(String instant) {
        Instant at = Instant.parse(instant);

        OffsetDateTime asText = jdbc.queryForObject(
                "SELECT cast(? AS timestamptz)", OffsetDateTime.class, TextParameters.timestamp(at));
        OffsetDateTime bound = jdbc.queryForObject(
                "SELECT cast(? AS timestamptz)", OffsetDateTime.class, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));

        assertThat(asText).isEqualTo(bound);
    }

    @ParameterizedTest(name = "S-OP-13: id {0} sent as text is the id, and null stays null")
    @ValueSource(strings = {"01a22f60-d7bf-75ff-bfe2-971133649ebf", "00000000-0000-0000-0000-000000000000"})
    void anIdAsTextIsTheId(String id) {
        UUID uuid = UUID.fromString(id);

        assertThat(jdbc.queryForObject("SELECT cast(? AS uuid)", UUID.class, TextParameters.uuid(uuid)))
                .isEqualTo(uuid);
        assertThat(jdbc.queryForObject("SELECT cast(? AS uuid) IS NULL", Boolean.class, TextParameters.uuid(null)))
                .isTrue();
    }
}

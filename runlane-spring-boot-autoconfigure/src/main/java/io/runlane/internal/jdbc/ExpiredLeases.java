package io.runlane.internal.jdbc;

import java.sql.Types;
import java.util.List;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Finds running runs whose lease has expired (S-EX-7), oldest expiry first, from the small running-runs index. */
public final class ExpiredLeases {

    private static final String FIND = """
            SELECT * FROM {schema}.runs
            WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at < statement_timestamp()
              AND environment = :environment
            ORDER BY lease_expires_at
            LIMIT :limit
            """;

    private final JdbcClient jdbc;

    private final String environment;

    private final String find;

    public ExpiredLeases(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.find = sql.format(FIND);
    }

    /** Up to {@code limit} runs whose lease has expired, with the fencing token of their last claim. */
    public List<ClaimedRun> find(int limit) {
        MapSqlParameterSource params = new MapSqlParameterSource()
                .addValue("environment", environment, Types.VARCHAR)
                .addValue("limit", limit, Types.INTEGER);
        return jdbc.sql(find)
                .paramSource(params)
                .query((rs, rowNum) -> new ClaimedRun(
                        RunRowMapper.INSTANCE.mapRow(rs, rowNum), rs.getLong("fencing_token"), rs.getInt("releases")))
                .list();
    }
}

package io.runlane.internal.maintenance;

import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.RunRowMapper;
import java.sql.Types;
import java.time.Duration;
import java.util.List;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Finds running runs that maintenance must end: those whose lease has expired (S-EX-7), oldest expiry first, and those
 * that ignored their cancellation past the grace (S-CA-5), both from the small running-runs index.
 */
final class ExpiredLeases {

    private static final String FIND = """
            SELECT * FROM {schema}.runs
            WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at < statement_timestamp()
              AND environment = :environment
            ORDER BY lease_expires_at
            LIMIT :limit
            """;

    /**
     * S-CA-5: runs asked to stop longer than the grace ago (by the database clock, from their {@code
     * CANCELLATION_REQUESTED} event) whose handler has still not returned.
     */
    private static final String FIND_OVERDUE_CANCELLATIONS = """
            SELECT r.* FROM {schema}.runs r
            WHERE r.status = 'CANCELLATION_REQUESTED' AND r.lease_expires_at IS NOT NULL AND r.environment = :environment
              AND EXISTS (SELECT FROM {schema}.run_events e
                          WHERE e.run_id = r.id AND e.type = 'CANCELLATION_REQUESTED'
                            AND e.created_at < statement_timestamp() - :graceMs * interval '1 millisecond')
            LIMIT :limit
            """;

    private final JdbcClient jdbc;

    private final String findOverdueCancellations;

    private final String environment;

    private final String find;

    ExpiredLeases(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.find = sql.format(FIND);
        this.findOverdueCancellations = sql.format(FIND_OVERDUE_CANCELLATIONS);
    }

    /** Up to {@code limit} runs whose lease has expired, with the fencing token of their last claim. */
    public List<ClaimedRun> find(int limit) {
        return claimedRuns(find, new MapSqlParameterSource().addValue("limit", limit, Types.INTEGER));
    }

    /**
     * Up to {@code limit} runs whose cancellation was requested more than {@code grace} ago and whose handler has not
     * returned, with the fencing token of their claim.
     */
    public List<ClaimedRun> findOverdueCancellations(Duration grace, int limit) {
        return claimedRuns(
                findOverdueCancellations,
                new MapSqlParameterSource()
                        .addValue("graceMs", grace.toMillis(), Types.BIGINT)
                        .addValue("limit", limit, Types.INTEGER));
    }

    private List<ClaimedRun> claimedRuns(String statement, MapSqlParameterSource params) {
        return jdbc.sql(statement)
                .paramSource(params.addValue("environment", environment, Types.VARCHAR))
                .query((rs, rowNum) -> new ClaimedRun(
                        RunRowMapper.INSTANCE.mapRow(rs, rowNum), rs.getLong("fencing_token"), rs.getInt("releases")))
                .list();
    }
}

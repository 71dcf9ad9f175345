package io.runlane.internal.jdbc;

import io.runlane.Run;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads the run that owns an idempotency key now, and nothing else: active, or finished and still within its retention
 * (S-IK-2, S-IK-3, S-IK-10). {@link RunAdmissions} asks this first while most triggers are duplicates, because the
 * read is a lookup in the owners' index, while the admission statement prepares the runs table and its indexes for an
 * insert even when it inserts nothing.
 */
final class CurrentOwners {

    private static final String OWNER =
            "SELECT r.* FROM {schema}.runs r WHERE" + KeyOwnership.keyIs("r") + "\n AND" + KeyOwnership.owns("r");

    private final JdbcClient jdbc;

    private final String environment;

    private final String owner;

    CurrentOwners(JdbcClient jdbc, SqlTemplate sql, String environment) {
        this.jdbc = jdbc;
        this.environment = environment;
        this.owner = sql.format(OWNER);
    }

    Optional<Run> find(String taskId, String idempotencyKey) {
        return jdbc.sql(owner)
                .param("environment", environment)
                .param("taskId", taskId)
                .param("idempotencyKey", idempotencyKey)
                .query(RunRowMapper.INSTANCE)
                .optional();
    }
}

package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.schema.RunlaneChangelog;
import io.runlane.internal.schema.RunlaneChangelog.ChangelogFile;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Changeset 010 moves idempotency key ownership from the {@code idempotency_keys} table into the runs table (issue
 * 16). A schema that held keys the old way is migrated with each key's owner, retention and freedom unchanged: the
 * test writes every kind of old row, applies 010, and triggers each key again (S-IK-1..5, S-IK-10).
 */
@RunlaneDatabaseTest
class KeyOwnershipMigrationIntegrationTests {

    private static final String TASK = "orders.confirm";

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    @TempDir
    static Path migrations;

    @Test
    @DisplayName("Issue 16, S-IK-1..5, S-IK-10: keys held in idempotency_keys keep their owner, retention and freedom"
            + " through changeset 010")
    void keysKeepTheirOwnersThroughTheMigration(@FreshSchema("keymig") String schema) throws IOException {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        migrate(schema, false);
        UUID active = oldRun(jdbc, schema, "active", "QUEUED", null, 86_400_000L);
        UUID retained = oldRun(jdbc, schema, "retained", "SUCCEEDED", "1 hour", 86_400_000L);
        UUID expired = oldRun(jdbc, schema, "expired", "SUCCEEDED", "2 days", 86_400_000L);
        UUID takenOver = oldRun(jdbc, schema, "taken-over", "SUCCEEDED", "3 days", 86_400_000L);
        UUID newOwner = oldRun(jdbc, schema, "taken-over", "QUEUED", null, 86_400_000L);
        UUID failed = oldRun(jdbc, schema, "failed", "FAILED", "1 hour", 86_400_000L);
        UUID reset = oldRun(jdbc, schema, "reset", "SUCCEEDED", "1 hour", 86_400_000L);
        own(jdbc, schema, "active", active, null);
        own(jdbc, schema, "retained", retained, "now() + interval '23 hours'");
        own(jdbc, schema, "expired", expired, "now() - interval '1 day'");
        own(jdbc, schema, "taken-over", newOwner, null);

        migrate(schema, true);

        assertThat(tableExists(jdbc, schema)).isFalse();
        TestRunlane runlane = TestRunlane.onMigratedSchema(dataSource, schema, TestTasks.all());
        try {
            RunlaneTemplate template = runlane.template();
            assertThat(trigger(template, "active").runId()).isEqualTo(active);
            assertThat(trigger(template, "retained").runId()).isEqualTo(retained);
            assertThat(trigger(template, "taken-over").runId())
                    .isEqualTo(newOwner)
                    .isNotEqualTo(takenOver);
            for (String freeKey : new String[] {"expired", "failed", "reset"}) {
                TriggerResult result = trigger(template, freeKey);
                assertThat(result.created()).as(freeKey).isTrue();
                assertThat(result.runId()).isNotIn(expired, failed, reset);
            }
            assertThat(template.idempotencyKeys().reset(TASK, "retained")).isTrue();
            assertThat(trigger(template, "retained").created()).isTrue();
        } finally {
            runlane.stop();
        }
    }

    private static TriggerResult trigger(RunlaneTemplate template, String key) {
        return template.trigger(
                ConfirmOrder.class,
                new ConfirmOrder.Payload("o-" + key, 1),
                TriggerOptions.builder().idempotencyKey(key).build());
    }

    /** A run as changesets 001-008 stored it, finished {@code finishedAgo} ago if given. */
    private static UUID oldRun(
            JdbcTemplate jdbc, String schema, String key, String status, String finishedAgo, long ttlMs) {
        UUID id = UUID.randomUUID();
        String finishedAt = finishedAgo == null ? "NULL" : "now() - interval '" + finishedAgo + "'";
        jdbc.update(
                "INSERT INTO " + schema + ".runs (id, environment, task_id, queue, status, payload, idempotency_key,"
                        + " idempotency_key_ttl_ms, max_attempts, run_at, created_at, updated_at, finished_at)"
                        + " VALUES (?, 'default', ?, 'default', ?, '{}', ?, ?, 3, now(), now() - interval '4 days',"
                        + " now(), " + finishedAt + ")",
                id,
                TASK,
                status,
                key,
                ttlMs);
        return id;
    }

    private static void own(JdbcTemplate jdbc, String schema, String key, UUID runId, String retainedUntil) {
        jdbc.update(
                "INSERT INTO " + schema + ".idempotency_keys (environment, task_id, idempotency_key, run_id,"
                        + " retained_until) VALUES ('default', ?, ?, ?, "
                        + (retainedUntil == null ? "NULL" : retainedUntil)
                        + ")",
                TASK,
                key,
                runId);
    }

    /** Applies the jar's changelog files with Flyway, as docs/schema.md describes, up to 010 or with it. */
    private static void migrate(String schema, boolean withKeyOwnership) throws IOException {
        Path location = Files.createDirectories(migrations.resolve(schema));
        int version = 1;
        for (ChangelogFile file : RunlaneChangelog.load().files()) {
            if (file.name().startsWith("010") && !withKeyOwnership) {
                break;
            }
            Path target = location.resolve("V" + version++ + "__runlane_" + file.stem() + ".sql");
            if (Files.notExists(target)) {
                try (InputStream in = KeyOwnershipMigrationIntegrationTests.class
                        .getClassLoader()
                        .getResourceAsStream("db/runlane/changes/" + file.name())) {
                    Files.copy(in, target);
                }
            }
        }
        Flyway.configure()
                .dataSource(dataSource)
                .schemas(schema)
                .defaultSchema(schema)
                .table("flyway_history")
                .locations("filesystem:" + location)
                .placeholders(Map.of(RunlaneSchemaInitializer.SCHEMA_PARAMETER, schema))
                .load()
                .migrate();
    }

    private static boolean tableExists(JdbcTemplate jdbc, String schema) {
        Integer count = jdbc.queryForObject(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = 'idempotency_keys'",
                Integer.class,
                schema);
        return count != null && count > 0;
    }
}

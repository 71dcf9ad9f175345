package io.runlane.testsupport;

import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The rules every run row keeps, which Runlane's statements maintain and PostgreSQL no longer re-checks on each write
 * (changeset 012, S-OP-12): {@link TestRunlane#stop()} checks them against every row a test leaves behind, so that a
 * statement that broke one fails the test that ran it.
 */
public final class RowRules {

    /** Each rule as a predicate that holds for every run row, with its name. */
    private static final List<String[]> RULES = List.of(
            new String[] {
                "status is known",
                "status IN ('QUEUED', 'SCHEDULED', 'RUNNING', 'RETRYING', 'RELEASED', 'WAITING',"
                        + " 'CANCELLATION_REQUESTED', 'SUCCEEDED', 'FAILED', 'CANCELLED')"
            },
            new String[] {
                "finished_at is set exactly when the status is terminal",
                "(finished_at IS NOT NULL) = (status IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))"
            },
            new String[] {
                "an idempotency TTL needs a key and is not negative",
                "idempotency_key_ttl_ms IS NULL OR (idempotency_key IS NOT NULL AND idempotency_key_ttl_ms >= 0)"
            },
            new String[] {"attempts are not negative and the budget is positive", "attempts >= 0 AND max_attempts >= 1"
            });

    private RowRules() {}

    /** The broken rules, each with up to five offending runs; empty when every row keeps every rule. */
    public static List<String> broken(JdbcTemplate jdbc, String schema) {
        return RULES.stream()
                .flatMap(rule -> jdbc
                        .queryForList(
                                "SELECT id || ' ' || status FROM " + schema + ".runs WHERE NOT coalesce(" + rule[1]
                                        + ", true) LIMIT 5",
                                String.class)
                        .stream()
                        .map(run -> rule[0] + ": " + run))
                .toList();
    }

    /** Fails when any run row breaks a rule. */
    public static void check(JdbcTemplate jdbc, String schema) {
        List<String> broken = broken(jdbc, schema);
        if (!broken.isEmpty()) {
            throw new AssertionError("Run rows break the row rules: " + broken);
        }
    }
}

package io.runlane.benchmarks;

import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A bulk load done the way PostgreSQL's documentation advises ("Populating a Database"): the tables' indexes and
 * primary-key and unique constraints are dropped, the rows inserted, and every one created again from its own
 * definition, read from the catalog just before (so this follows any change to Runlane's schema). Building an index
 * from the loaded rows is several times faster than maintaining it row by row; the table stays logged throughout.
 * A rebuilt index is packed as REINDEX leaves it. Tables that a foreign key refers to are loaded with their indexes in
 * place, since their keys cannot be dropped.
 */
final class DeferredIndexes {

    /** The constraints whose indexes a load may defer, and how to create them again. */
    private static final String CONSTRAINTS = """
            SELECT 'ALTER TABLE ' || c.conrelid::regclass || ' DROP CONSTRAINT ' || quote_ident(c.conname),
                   'ALTER TABLE ' || c.conrelid::regclass || ' ADD CONSTRAINT ' || quote_ident(c.conname) || ' '
                       || pg_get_constraintdef(c.oid)
            FROM pg_constraint c
            WHERE c.conrelid = ?::regclass AND c.contype IN ('p', 'u')
            """;

    /** The indexes that no constraint owns. */
    private static final String INDEXES = """
            SELECT 'DROP INDEX ' || i.indexrelid::regclass, pg_get_indexdef(i.indexrelid)
            FROM pg_index i
            WHERE i.indrelid = ?::regclass
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                              WHERE c.conrelid = i.indrelid AND c.conindid = i.indexrelid)
            """;

    private static final String REFERENCED =
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND confrelid = ?::regclass";

    /** Memory for each index build: a sort of ten million keys then stays in memory or nearly. */
    private static final String BUILD_MEMORY = "256MB";

    private record Definition(String drop, String create) {}

    private DeferredIndexes() {}

    /** Runs {@code load} with the indexes of {@code qualifiedTables} dropped, then creates them again. */
    static void around(JdbcTemplate jdbc, List<String> qualifiedTables, Runnable load) {
        List<Definition> definitions = new ArrayList<>();
        for (String table : qualifiedTables) {
            Long referencing = jdbc.queryForObject(REFERENCED, Long.class, table);
            if (referencing != null && referencing > 0) {
                continue;
            }
            definitions.addAll(read(jdbc, CONSTRAINTS, table));
            definitions.addAll(read(jdbc, INDEXES, table));
        }
        run(jdbc, definitions.stream().map(Definition::drop).toList());
        try {
            load.run();
        } finally {
            run(jdbc, definitions.stream().map(Definition::create).toList());
        }
    }

    private static List<Definition> read(JdbcTemplate jdbc, String query, String table) {
        return jdbc.query(query, (row, index) -> new Definition(row.getString(1), row.getString(2)), table);
    }

    /** Runs the statements on one connection, with more memory for index builds than the server's default. */
    private static void run(JdbcTemplate jdbc, List<String> statements) {
        jdbc.execute((ConnectionCallback<Void>) connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET maintenance_work_mem = '" + BUILD_MEMORY + "'");
                try {
                    for (String sql : statements) {
                        statement.execute(sql);
                    }
                } finally {
                    statement.execute("RESET maintenance_work_mem");
                }
            }
            return null;
        });
    }
}

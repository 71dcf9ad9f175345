package io.runlane.benchmarks;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A prototype for docs/scaling.md, not Runlane's schema: finished runs kept for 14 days, half of which are pruned.
 * Two copies of a table of finished runs with the runs table's columns, its primary key and its index on {@code
 * (status, finished_at)}, filled alike with one run finishing every {@code 14 days / N}: one plain, pruned the way
 * Runlane's pruner does (batches of 1,000 oldest first by that index, a cursor on the finish time), then vacuumed
 * as autovacuum would have to; one partitioned by range of {@code finished_at} into daily partitions, pruned by
 * {@code DETACH PARTITION ... CONCURRENTLY} and {@code DROP TABLE} of the 7 oldest days. Reports the time of each,
 * and the tables' sizes after (the plain table keeps the space of its deleted rows for reuse; the partitioned one
 * returns it to the file system). Rounds fill both tables afresh and prune the plain one first.
 */
final class PartitionedPruningScenario implements Scenario {

    private static final String SCHEMA = BenchmarkContext.SCHEMA + "_history";

    private static final String PLAIN = SCHEMA + ".finished_runs_plain";

    private static final String PARTITIONED = SCHEMA + ".finished_runs_partitioned";

    private static final int DAYS = 14;

    private static final int PRUNED_DAYS = 7;

    private static final int BATCH = 1_000;

    /**
     * The first partition's lower bound, midnight {@value #DAYS} days before the fill, kept in a table of its own so
     * that every statement of a round uses the same day even if midnight passes meanwhile.
     */
    private static final String CLOCK = SCHEMA + ".fill_clock";

    private static final String FIRST_DAY = "(SELECT first_day FROM " + CLOCK + ")";

    private static final String CREATE_CLOCK =
            "CREATE TABLE " + CLOCK + " AS SELECT date_trunc('day', now()) - interval '" + DAYS + " days' AS first_day";

    /** One partition per day from the first day to the day of the fill. */
    private static final String CREATE_PARTITIONS = """
            DO $$
            DECLARE first_day timestamptz := %1$s;
            BEGIN
                FOR day IN 0..%2$d LOOP
                    EXECUTE format('CREATE TABLE %3$s.finished_runs_p%%s PARTITION OF %4$s FOR VALUES FROM (%%L) TO (%%L)',
                                   to_char(first_day + day * interval '1 day', 'YYYYMMDD'),
                                   first_day + day * interval '1 day', first_day + (day + 1) * interval '1 day');
                END LOOP;
            END $$
            """.formatted(FIRST_DAY, DAYS, SCHEMA, PARTITIONED);

    /**
     * {@code ?} runs finished evenly over the {@value #DAYS} days before today, oldest first, as {@link RetainedRuns}
     * writes them; their keys are released, as a history table's runs hold none.
     */
    private static final String FILL = """
            INSERT INTO %1$s (id, environment, task_id, queue, status, payload, idempotency_key,
                              idempotency_key_ttl_ms, idempotency_key_released, attempts, max_attempts, run_at,
                              created_at, updated_at, finished_at, last_event_seq, fencing_token)
            SELECT (lpad(to_hex(floor(extract(epoch FROM t.finished_at) * 1000)::bigint), 12, '0')
                    || '7' || lpad(to_hex(i & 4095), 3, '0') || '8' || lpad(to_hex(i), 15, '0'))::uuid,
                   'default', '%2$s', 'default', 'SUCCEEDED', jsonb_build_object('orderId', 'history-' || i),
                   'order.history-' || i, 2592000000, true, 1, 3,
                   t.finished_at - interval '1 second', t.finished_at - interval '1 second', t.finished_at,
                   t.finished_at, 3, 1
            FROM (SELECT ?::bigint AS total) fill,
                 generate_series(1, fill.total) i,
                 LATERAL (SELECT %3$s + (i - 1) * (interval '%4$d days' / fill.total) AS finished_at) t
            """;

    /** One batch of Runlane's pruner, reduced to the runs: the oldest finished runs after the cursor, deleted. */
    private static final String DELETE_BATCH = """
            WITH doomed AS (
                SELECT id FROM %1$s
                WHERE status = 'SUCCEEDED' AND finished_at IS NOT NULL
                  AND finished_at < %2$s + interval '%3$d days' AND finished_at > ?
                ORDER BY finished_at
                LIMIT %4$d
                FOR UPDATE SKIP LOCKED
            ), deleted AS (
                DELETE FROM %1$s r USING doomed d WHERE r.id = d.id RETURNING r.finished_at
            )
            SELECT count(*), max(finished_at) FROM deleted
            """.formatted(PLAIN, FIRST_DAY, PRUNED_DAYS, BATCH);

    private static final String PARTITIONS_TO_DROP = """
            SELECT c.oid::regclass::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = '%1$s'::regclass
              AND c.relname < 'finished_runs_p' || to_char(%2$s + interval '%3$d days', 'YYYYMMDD')
            ORDER BY c.relname
            """.formatted(PARTITIONED, FIRST_DAY, PRUNED_DAYS);

    private static final String PARTITIONED_SIZE = """
            SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('%s') WHERE isleaf
            """.formatted(PARTITIONED);

    @Override
    public String name() {
        return "partitioned pruning";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        int runs = context.options().size(1_000_000, 50_000);
        List<Double> deleteSeconds = new ArrayList<>();
        List<Double> vacuumSeconds = new ArrayList<>();
        List<Double> dropSeconds = new ArrayList<>();
        List<Double> plainBefore = new ArrayList<>();
        List<Double> plainAfter = new ArrayList<>();
        List<Double> partitionedBefore = new ArrayList<>();
        List<Double> partitionedAfter = new ArrayList<>();
        try {
            for (int round = 0; round < context.options().rounds(); round++) {
                double fillSeconds = fill(context, runs);
                plainBefore.add(megabytes(context, "SELECT pg_total_relation_size('" + PLAIN + "')"));
                partitionedBefore.add(megabytes(context, PARTITIONED_SIZE));
                long began = System.nanoTime();
                long deleted = deleteInBatches(context);
                deleteSeconds.add((System.nanoTime() - began) / 1e9);
                began = System.nanoTime();
                context.jdbc().execute("VACUUM " + PLAIN);
                vacuumSeconds.add((System.nanoTime() - began) / 1e9);
                plainAfter.add(megabytes(context, "SELECT pg_total_relation_size('" + PLAIN + "')"));
                Doomed doomed = Doomed.find(context);
                began = System.nanoTime();
                doomed.drop(context);
                dropSeconds.add((System.nanoTime() - began) / 1e9);
                long dropped = doomed.rows();
                partitionedAfter.add(megabytes(context, PARTITIONED_SIZE));
                check(context, runs, deleted, dropped);
                context.progress(
                        "partitioned pruning, round %d: %,d runs filled in %.1f s; DELETE of %,d in %.2f s (VACUUM"
                                + " %.2f s), DROP of %d partitions in %.3f s; %.0f MB plain, %.0f MB partitioned after",
                        round + 1,
                        runs,
                        fillSeconds,
                        deleted,
                        deleteSeconds.get(round),
                        vacuumSeconds.get(round),
                        doomed.partitions().size(),
                        dropSeconds.get(round),
                        plainAfter.get(round),
                        partitionedAfter.get(round));
            }
        } finally {
            context.dropSchema(SCHEMA);
        }
        String pruned = String.format(
                Locale.ROOT, "%,d of %,d finished runs (%d of %d days)", runs / 2, runs, PRUNED_DAYS, DAYS);
        Rounds deletes = new Rounds(deleteSeconds);
        Rounds drops = new Rounds(dropSeconds);
        report.figure("partitioned pruning: prune " + pruned + ", DELETE in batches of 1,000 (s)", deletes, 2);
        report.figure(
                "partitioned pruning: VACUUM of the plain table after that DELETE (s)", new Rounds(vacuumSeconds), 2);
        report.figure(
                "partitioned pruning: prune the same runs by DETACH PARTITION CONCURRENTLY + DROP TABLE of "
                        + PRUNED_DAYS + " daily partitions (s)",
                drops,
                3);
        Rounds plainSize = new Rounds(plainAfter);
        Rounds partitionedSize = new Rounds(partitionedAfter);
        report.figure("partitioned pruning: plain table with indexes, before pruning (MB)", new Rounds(plainBefore), 1);
        report.figure("partitioned pruning: plain table with indexes, after DELETE and VACUUM (MB)", plainSize, 1);
        report.figure(
                "partitioned pruning: partitioned table with indexes, before pruning (MB)",
                new Rounds(partitionedBefore),
                1);
        report.figure("partitioned pruning: partitioned table with indexes, after DROP (MB)", partitionedSize, 1);
        report.ratio(
                "prune " + pruned + ": DELETE batches ÷ DETACH + DROP partitions (time)",
                deletes,
                drops,
                ResultsWriter.format(deletes.median()) + " ÷ " + ResultsWriter.format(drops.median()) + " s");
        report.ratio(
                "size after pruning the same runs: plain table (DELETE, VACUUM) ÷ partitioned table (DROP)",
                plainSize,
                partitionedSize,
                ResultsWriter.format(plainSize.median()) + " ÷ " + ResultsWriter.format(partitionedSize.median())
                        + " MB");
        report.note("Partitioned pruning: a prototype of a history table partitioned by finished_at (docs/scaling.md),"
                + " not Runlane's schema; both copies have the runs table's columns, a primary key (the partitioned"
                + " one's includes finished_at, as PostgreSQL requires) and the (status, finished_at) index, built"
                + " after the fill and vacuumed. The VACUUM after the DELETE is what autovacuum must do before the"
                + " space is reused; the plain table's file does not shrink.");
    }

    /** Creates both tables afresh and fills them with the same runs; returns the seconds it took. */
    private static double fill(BenchmarkContext context, int runs) {
        long began = System.nanoTime();
        context.createEmptySchema(SCHEMA);
        String columns = " (LIKE " + BenchmarkContext.SCHEMA + ".runs INCLUDING DEFAULTS)";
        context.jdbc().execute("CREATE TABLE " + PLAIN + columns);
        context.jdbc().execute("CREATE TABLE " + PARTITIONED + columns + " PARTITION BY RANGE (finished_at)");
        context.jdbc().execute(CREATE_CLOCK);
        context.jdbc().execute(CREATE_PARTITIONS);
        context.jdbc().update(FILL.formatted(PLAIN, BenchmarkTasks.ORDER, FIRST_DAY, DAYS), runs);
        context.jdbc().execute("INSERT INTO " + PARTITIONED + " SELECT * FROM " + PLAIN);
        context.jdbc().execute("ALTER TABLE " + PLAIN + " ADD PRIMARY KEY (id)");
        context.jdbc().execute("ALTER TABLE " + PARTITIONED + " ADD PRIMARY KEY (id, finished_at)");
        for (String table : List.of(PLAIN, PARTITIONED)) {
            context.jdbc().execute("CREATE INDEX ON " + table + " (status, finished_at) WHERE finished_at IS NOT NULL");
        }
        context.vacuumAnalyze(PLAIN, PARTITIONED);
        return (System.nanoTime() - began) / 1e9;
    }

    /** Deletes every run of the pruned days from the plain table, batch after batch; returns how many. */
    private static long deleteInBatches(BenchmarkContext context) {
        long deleted = 0;
        OffsetDateTime cursor = OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
        while (true) {
            Batch batch = context.jdbc()
                    .queryForObject(
                            DELETE_BATCH,
                            (row, index) -> new Batch(row.getLong(1), row.getObject(2, OffsetDateTime.class)),
                            cursor);
            if (batch.deleted() == 0) {
                return deleted;
            }
            deleted += batch.deleted();
            cursor = batch.lastFinishedAt();
        }
    }

    private record Batch(long deleted, OffsetDateTime lastFinishedAt) {}

    /** The partitions of the pruned days, with the rows they hold. */
    private record Doomed(List<String> partitions, long rows) {

        static Doomed find(BenchmarkContext context) {
            List<String> partitions = context.jdbc().queryForList(PARTITIONS_TO_DROP, String.class);
            long rows = 0;
            for (String partition : partitions) {
                rows += context.jdbc().queryForObject("SELECT count(*) FROM " + partition, Long.class);
            }
            return new Doomed(partitions, rows);
        }

        /** Detaches each partition without blocking readers and writers of the others, and drops it. */
        void drop(BenchmarkContext context) {
            for (String partition : partitions) {
                context.jdbc()
                        .execute("ALTER TABLE " + PARTITIONED + " DETACH PARTITION " + partition + " CONCURRENTLY");
                context.jdbc().execute("DROP TABLE " + partition);
            }
        }
    }

    private static void check(BenchmarkContext context, int runs, long deleted, long dropped) {
        long plainLeft = context.jdbc().queryForObject("SELECT count(*) FROM " + PLAIN, Long.class);
        long partitionedLeft = context.jdbc().queryForObject("SELECT count(*) FROM " + PARTITIONED, Long.class);
        if (deleted != dropped || plainLeft != partitionedLeft || plainLeft + deleted != runs) {
            throw new IllegalStateException(String.format(
                    Locale.ROOT,
                    "Pruned %d rows by DELETE and %d by DROP; %d and %d left of %d",
                    deleted,
                    dropped,
                    plainLeft,
                    partitionedLeft,
                    runs));
        }
    }

    private static double megabytes(BenchmarkContext context, String sizeQuery) {
        return context.jdbc().queryForObject(sizeQuery, Long.class) / (1024.0 * 1024.0);
    }
}

package io.runlane.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * A plain PostgreSQL job table drained by 8 threads, each claiming up to 8 due rows in one {@code UPDATE ... FOR
 * UPDATE SKIP LOCKED} statement, with a partial index on due rows; no leases, events, retries or keys. The naive loop
 * then completes each row with its own autocommit {@code UPDATE}, a commit per job; the batched loop completes the
 * claimed rows with one {@code UPDATE ... WHERE id = ANY(?)}, two statements and two commits per batch of 8. The
 * batched loop is the floor for a job table on this database: Runlane also claims many runs per statement and
 * records many completions per statement, and does more in each.
 */
final class SkipLockedDrain implements Drain {

    private static final String TABLE = BenchmarkContext.SCHEMA + ".plain_jobs";

    private static final String CLAIM = """
            UPDATE %1$s SET status = 'RUNNING', locked_by = ?
            WHERE id IN (SELECT id FROM %1$s WHERE status = 'QUEUED' AND run_at <= now() ORDER BY run_at LIMIT %2$d
                         FOR UPDATE SKIP LOCKED)
            RETURNING id
            """.formatted(TABLE, THREADS);

    private static final String COMPLETE =
            "UPDATE " + TABLE + " SET status = 'DONE', finished_at = now() WHERE id = ? AND status = 'RUNNING'";

    private static final String COMPLETE_ALL =
            "UPDATE " + TABLE + " SET status = 'DONE', finished_at = now() WHERE id = ANY(?) AND status = 'RUNNING'";

    private final BenchmarkContext context;

    private final boolean batchedCompletions;

    /** The naive loop ({@code batchedCompletions} false: one commit per completion) or the batched one. */
    SkipLockedDrain(BenchmarkContext context, boolean batchedCompletions) {
        this.context = context;
        this.batchedCompletions = batchedCompletions;
        context.jdbc()
                .execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id bigserial PRIMARY KEY, status text NOT NULL,"
                        + " run_at timestamptz NOT NULL DEFAULT now(), locked_by text, finished_at timestamptz)");
        context.jdbc()
                .execute("CREATE INDEX IF NOT EXISTS plain_jobs_due ON " + TABLE + " (run_at) WHERE status = 'QUEUED'");
    }

    @Override
    public String name() {
        return batchedCompletions
                ? "batched JDBC loop: claim (SKIP LOCKED, batch 8) + one UPDATE ... = ANY(?) per batch"
                : "naive JDBC loop: claim (SKIP LOCKED, batch 8) + one autocommit UPDATE per job";
    }

    @Override
    public void enqueue(int jobs) {
        context.jdbc().execute("TRUNCATE " + TABLE);
        context.jdbc().update("INSERT INTO " + TABLE + " (status) SELECT 'QUEUED' FROM generate_series(1, ?)", jobs);
        context.vacuumAnalyze(TABLE);
    }

    @Override
    public Duration drain(int jobs) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            long began = System.nanoTime();
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                String worker = "plain-" + t;
                done.add(threads.submit(() -> {
                    int count = 0;
                    while (true) {
                        List<Long> ids = context.jdbc().queryForList(CLAIM, Long.class, worker);
                        if (ids.isEmpty()) {
                            return count;
                        }
                        if (batchedCompletions) {
                            count += complete(ids);
                        } else {
                            for (Long id : ids) {
                                count += context.jdbc().update(COMPLETE, id);
                            }
                        }
                    }
                }));
            }
            long completed = 0;
            for (Future<Integer> future : done) {
                completed += future.get();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            if (completed != jobs) {
                throw new IllegalStateException("The plain loop completed " + completed + " of " + jobs + " jobs");
            }
            return took;
        } finally {
            threads.shutdown();
        }
    }

    /** Completes the claimed rows in one statement; returns how many it completed. */
    private int complete(List<Long> ids) {
        return context.jdbc().update(COMPLETE_ALL, new SqlArrayValue("bigint", ids.toArray()));
    }
}

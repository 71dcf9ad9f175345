package io.runlane.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A plain JDBC baseline for a trigger that shares its commit: each calling thread queues its row, and whichever
 * caller finds one of two lanes free inserts every queued row with one multi-row statement and one commit, then
 * releases their callers. It is what group commit can do here without any of Runlane's work, and so shows whether
 * sharing commits between a few threads could lift a trigger above the single-row insert.
 */
final class GroupedJdbcInsert implements Measurement.Operation {

    private static final int LANES = 2;

    private final JdbcTemplate jdbc;

    private final String insert;

    private final Queue<Row> queued = new ConcurrentLinkedQueue<>();

    private final Semaphore lanes = new Semaphore(LANES);

    private final Object groupEnded = new Object();

    GroupedJdbcInsert(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        this.insert = "INSERT INTO " + BenchmarkContext.SCHEMA + ".baseline (id, payload)"
                + " SELECT * FROM unnest(cast(? AS uuid[]), cast(? AS jsonb[]))";
    }

    @Override
    public void run(int worker, long sequence) throws Exception {
        Row mine = new Row(UUID.randomUUID().toString(), "{\"orderId\":\"grouped-" + sequence + "\"}");
        queued.add(mine);
        while (mine.committed.getCount() > 0) {
            if (lanes.tryAcquire()) {
                try {
                    lead();
                } finally {
                    lanes.release();
                }
                synchronized (groupEnded) {
                    groupEnded.notifyAll();
                }
            } else {
                synchronized (groupEnded) {
                    if (mine.committed.getCount() > 0 && lanes.availablePermits() == 0) {
                        groupEnded.wait(1);
                    }
                }
            }
        }
    }

    private void lead() {
        List<Row> group = new ArrayList<>();
        for (Row next = queued.poll(); next != null; next = queued.poll()) {
            group.add(next);
        }
        if (group.isEmpty()) {
            return;
        }
        jdbc.update(
                insert,
                "{" + String.join(",", group.stream().map(Row::id).toList()) + "}",
                group.stream()
                        .map(row -> quoted(row.payload()))
                        .reduce((a, b) -> a + "," + b)
                        .map(all -> "{" + all + "}")
                        .orElseThrow());
        group.forEach(row -> row.committed.countDown());
    }

    /** {@code json} as an element of a PostgreSQL array literal. */
    private static String quoted(String json) {
        return "\"" + json.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private record Row(String id, String payload, CountDownLatch committed) {
        Row(String id, String payload) {
            this(id, payload, new CountDownLatch(1));
        }
    }
}

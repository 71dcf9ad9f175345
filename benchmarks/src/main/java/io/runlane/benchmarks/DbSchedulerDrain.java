package io.runlane.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * db-scheduler 16.7.1 as a plain library, on the same database and pool: one scheduler with 8 executor threads and
 * lock-and-fetch polling ({@code UPDATE ... FOR UPDATE SKIP LOCKED ... RETURNING}, fetching again when fewer than
 * half the threads are busy, up to one execution per thread), draining one-time executions of a no-op task. Its
 * table is created from the library's documented PostgreSQL DDL in a schema of its own.
 */
final class DbSchedulerDrain implements Drain {

    private static final String SCHEMA = "dbscheduler_bench";

    private static final String TABLE = SCHEMA + ".scheduled_tasks";

    /** db-scheduler's documented PostgreSQL table (postgresql_tables.sql); {@code %1$s} is the qualified name. */
    static final String DDL = """
            create table %1$s (
              task_name text not null,
              task_instance text not null,
              task_data bytea,
              execution_time timestamp with time zone not null,
              picked BOOLEAN not null,
              picked_by text,
              last_success timestamp with time zone,
              last_failure timestamp with time zone,
              consecutive_failures INT,
              last_heartbeat timestamp with time zone,
              version BIGINT not null,
              priority SMALLINT,
              PRIMARY KEY (task_name, task_instance)
            );
            CREATE INDEX execution_time_idx ON %1$s (execution_time);
            CREATE INDEX last_heartbeat_idx ON %1$s (last_heartbeat);
            CREATE INDEX priority_execution_time_idx on %1$s (priority desc, execution_time asc);
            """;

    private static final int SCHEDULE_BATCH = 1_000;

    private final BenchmarkContext context;

    private final AtomicLong executed = new AtomicLong();

    private final OneTimeTask<Void> task =
            Tasks.oneTime("bench-noop").execute((instance, execution) -> executed.incrementAndGet());

    private int round;

    DbSchedulerDrain(BenchmarkContext context) {
        this.context = context;
        context.createEmptySchema(SCHEMA);
        context.jdbc().execute(DDL.formatted(TABLE));
    }

    @Override
    public String name() {
        return "db-scheduler 16.7.1 (lock-and-fetch, 8 threads)";
    }

    @Override
    public void enqueue(int jobs) {
        context.jdbc().execute("TRUNCATE " + TABLE);
        SchedulerClient client = SchedulerClient.Builder.create(context.pool(), task)
                .tableName(TABLE)
                .build();
        String prefix = "r" + round++ + "-";
        Instant now = Instant.now();
        for (int from = 0; from < jobs; from += SCHEDULE_BATCH) {
            List<TaskInstance<?>> batch = IntStream.range(from, Math.min(jobs, from + SCHEDULE_BATCH))
                    .<TaskInstance<?>>mapToObj(i -> task.instance(prefix + i))
                    .toList();
            client.scheduleBatch(batch, now);
        }
        context.vacuumAnalyze(TABLE);
    }

    @Override
    public Duration drain(int jobs) throws InterruptedException {
        Scheduler scheduler = Scheduler.create(context.pool(), task)
                .tableName(TABLE)
                .threads(THREADS)
                .pollUsingLockAndFetch(0.5, 1.0)
                .pollingInterval(Duration.ofMillis(100))
                .build();
        String remaining = "SELECT count(*) FROM " + TABLE;
        long before = executed.get();
        long began = System.nanoTime();
        scheduler.start();
        try {
            Drain.awaitDrained(
                    () -> executed.get() - before,
                    jobs,
                    () -> context.jdbc().queryForObject(remaining, Long.class) == 0);
            return Duration.ofNanos(System.nanoTime() - began);
        } finally {
            scheduler.stop();
        }
    }
}

package io.runlane.benchmarks;

import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.time.Instant;

/**
 * db-scheduler 16.7.1's deduplicated enqueue: {@code SchedulerClient.scheduleIfNotExists} of a one-time task whose
 * instance id is the deduplication id and whose data is the order id, due now, into the library's documented table
 * in a schema of its own. No scheduler runs, so the executions stay in the table.
 */
final class DbSchedulerEnqueue implements PeerEnqueue {

    private static final String SCHEMA = "dbscheduler_enqueue_bench";

    private static final String TABLE = SCHEMA + ".scheduled_tasks";

    private final BenchmarkContext context;

    private final OneTimeTask<String> task =
            Tasks.oneTime("bench-order", String.class).execute((instance, execution) -> {});

    private final SchedulerClient client;

    DbSchedulerEnqueue(BenchmarkContext context) {
        this.context = context;
        context.createEmptySchema(SCHEMA);
        context.jdbc().execute(DbSchedulerDrain.DDL.formatted(TABLE));
        this.client = SchedulerClient.Builder.create(context.pool(), task)
                .tableName(TABLE)
                .build();
    }

    @Override
    public String name() {
        return "db-scheduler 16.7.1 scheduleIfNotExists";
    }

    @Override
    public void enqueue(String orderId) {
        if (!client.scheduleIfNotExists(task.instance(PeerEnqueue.deduplicationId(orderId), orderId), Instant.now())) {
            throw new IllegalStateException("db-scheduler found " + orderId + " scheduled already");
        }
    }

    @Override
    public void close() {
        context.dropSchema(SCHEMA);
    }
}

package io.runlane.benchmarks;

import dev.dbos.transact.DBOSClient;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.migrations.MigrationManager;

/**
 * DBOS Transact for Java (1.1.0-m6)'s deduplicated enqueue: {@code DBOSClient.enqueueWorkflow} on a queue with a
 * deduplication id and the order id as the workflow's argument, on the benchmark's pool, into DBOS's system tables
 * in a schema of their own (created by DBOS's own migrations). The client is DBOS's API for enqueueing from outside
 * a workflow; an application's {@code DBOS.startWorkflow} with a queue enqueues through the same code. No DBOS
 * instance runs, so the workflows stay enqueued.
 */
final class DbosEnqueue implements PeerEnqueue {

    private static final String SCHEMA = "dbos_enqueue_bench";

    private static final String QUEUE = "bench-orders";

    private final BenchmarkContext context;

    private final DBOSClient client;

    DbosEnqueue(BenchmarkContext context) {
        this.context = context;
        context.createEmptySchema(SCHEMA);
        MigrationManager.runMigrations(DBOSConfig.defaults("runlane-bench")
                .withDataSource(context.pool())
                .withDatabaseSchema(SCHEMA));
        this.client = new DBOSClient(context.pool(), SCHEMA);
    }

    @Override
    public String name() {
        return "DBOS Transact 1.1.0-m6 enqueue with a deduplication id";
    }

    @Override
    public void enqueue(String orderId) {
        client.enqueueWorkflow(
                new DBOSClient.EnqueueOptions("bench-order", QUEUE)
                        .withClassName(DbosEnqueue.class.getName())
                        .withDeduplicationId(PeerEnqueue.deduplicationId(orderId)),
                new Object[] {orderId});
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            context.dropSchema(SCHEMA);
        }
    }
}

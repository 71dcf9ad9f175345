package io.runlane.benchmarks;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * The same workflow in DBOS Transact for Java (1.1.0-m6): a workflow of N no-op steps ({@code runStep}), on the
 * benchmark's database in a schema of its own. 8 threads (Runlane's worker has 8 slots) each call the workflow
 * directly, one after another, so DBOS's queue polling does not enter the figure; each workflow still records its
 * start, every step and its end. Timed from the first call to the last return.
 */
final class DbosSteps implements AutoCloseable {

    static final String SCHEMA = "dbos_bench";

    /** The workflow's interface, for DBOS's proxy. */
    public interface StepsWorkflow {

        int run(int steps) throws Exception;
    }

    /** Nanoseconds each step call took, while a scenario collects them. */
    static final java.util.Queue<Long> STEP_NANOS = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** N no-op steps. */
    public static final class StepsWorkflowImpl implements StepsWorkflow {

        private volatile DBOS dbos;

        @Override
        @Workflow(name = "bench-steps")
        public int run(int steps) throws Exception {
            for (int i = 0; i < steps; i++) {
                long began = System.nanoTime();
                dbos.runStep(() -> {}, "step");
                STEP_NANOS.add(System.nanoTime() - began);
            }
            return steps;
        }
    }

    private final DBOS dbos;

    private final StepsWorkflow proxy;

    DbosSteps(javax.sql.DataSource dataSource) {
        DBOSConfig config = DBOSConfig.defaults("runlane-bench")
                .withDataSource(dataSource)
                .withDatabaseSchema(SCHEMA)
                .disableAdminServer();
        dbos = new DBOS(config);
        StepsWorkflowImpl impl = new StepsWorkflowImpl();
        impl.dbos = dbos;
        proxy = dbos.registerProxy(StepsWorkflow.class, impl);
        dbos.launch();
    }

    /** Runs {@code workflows} workflows of {@code steps} steps on 8 threads; returns workflows per second. */
    double drain(int workflows, int steps) throws Exception {
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(Drain.THREADS);
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        long began = System.nanoTime();
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int t = 0; t < Drain.THREADS; t++) {
                done.add(threads.submit(() -> {
                    while (next.getAndIncrement() < workflows) {
                        proxy.run(steps);
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> future : done) {
                future.get();
            }
        } finally {
            threads.shutdown();
        }
        return workflows / ((System.nanoTime() - began) / 1e9);
    }

    @Override
    public void close() {
        dbos.shutdown();
    }
}

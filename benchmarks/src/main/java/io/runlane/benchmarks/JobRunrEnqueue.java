package io.runlane.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.storage.StorageProviderUtils.DatabaseOptions;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.jackson3.Jackson3JsonMapper;

/**
 * JobRunr (open-source edition)'s deduplicated enqueue: {@code JobScheduler.enqueue(id, job)} with a fixed id (a
 * name-based UUID of the deduplication id; JobRunr ignores a job whose id it already has) and a job lambda taking the
 * order id, into JobRunr's PostgreSQL storage provider on the benchmark's pool, in a schema of its own. No background
 * job server runs, so the jobs stay enqueued.
 */
final class JobRunrEnqueue implements PeerEnqueue {

    private static final String SCHEMA = "jobrunr_bench";

    private final BenchmarkContext context;

    private final PostgresStorageProvider storage;

    private final JobScheduler scheduler;

    /** The job JobRunr would run. */
    public static final class OrderJob {

        private OrderJob() {}

        public static void process(String orderId) {}
    }

    JobRunrEnqueue(BenchmarkContext context) {
        this.context = context;
        context.createEmptySchema(SCHEMA);
        this.storage = new PostgresStorageProvider(context.pool(), SCHEMA + ".", DatabaseOptions.CREATE);
        this.scheduler = JobRunr.configure()
                .useJsonMapper(new Jackson3JsonMapper())
                .useStorageProvider(storage)
                .initialize()
                .getJobScheduler();
    }

    @Override
    public String name() {
        return "JobRunr 8.4.0 enqueue with a fixed id";
    }

    @Override
    public void enqueue(String orderId) {
        UUID id = UUID.nameUUIDFromBytes(PeerEnqueue.deduplicationId(orderId).getBytes(StandardCharsets.UTF_8));
        scheduler.enqueue(id, () -> OrderJob.process(orderId));
    }

    @Override
    public void close() {
        try {
            JobRunr.destroy();
        } finally {
            context.dropSchema(SCHEMA);
        }
    }
}

package io.runlane.internal.maintenance;

import io.runlane.RunFailure;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.FailedRuns;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.worker.AttemptOutcomes;
import io.runlane.internal.worker.RetryPolicy;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Recovers runs whose worker died or froze (S-EX-7, S-CA-2):
 *
 * <ol>
 *   <li>find running runs whose lease has expired, oldest first, in a bounded batch;
 *   <li>for each, count the attempt as failed with code {@code lease_expired} and retry it after the task's backoff
 *       or fail it when its budget is spent; a run whose cancellation was requested becomes {@code CANCELLED};
 *   <li>each change is one statement fenced by the claim's token and by the lease still being expired, so a
 *       heartbeat or completion that lands first wins, and several instances recovering at once change each run
 *       exactly once. Single-row statements in expiry order never deadlock.
 * </ol>
 */
public final class LeaseRescuer {

    private static final Log logger = LogFactory.getLog(LeaseRescuer.class);

    public static final String LEASE_EXPIRED = "lease_expired";

    private final ExpiredLeases expiredLeases;

    private final AttemptOutcomes outcomes;

    private final TaskRegistry tasks;

    private final RetryPolicy retries;

    private final int batchSize;

    private final EngineListener listener;

    LeaseRescuer(
            ExpiredLeases expiredLeases,
            AttemptOutcomes outcomes,
            TaskRegistry tasks,
            RetryPolicy retries,
            int batchSize,
            EngineListener listener) {
        this.listener = listener;
        this.expiredLeases = expiredLeases;
        this.outcomes = outcomes;
        this.tasks = tasks;
        this.retries = retries;
        this.batchSize = batchSize;
    }

    /** Recovers one batch of expired leases; returns how many runs this call changed. */
    public int rescueExpired() {
        int rescued = 0;
        for (ClaimedRun expired : expiredLeases.find(batchSize)) {
            TaskDefinition task = tasks.find(expired.run().taskId()).orElse(null);
            Duration retryDelay = retries.retryDelay(task, expired, null);
            RunFailure failure = new RunFailure(
                    LEASE_EXPIRED,
                    null,
                    "attempt " + expired.run().attempts() + " lost its lease (worker stopped heartbeating)");
            java.util.Optional<io.runlane.Run> after = outcomes.expireIfLeaseLapsed(
                    expired.run().id(), expired.fencingToken(), "maintenance", failure, retryDelay);
            after.ifPresent(FailedRuns::logIfFailed);
            after.filter(run -> run.status().isTerminal()).ifPresent(run -> listener.runEnded(run.id(), run.status()));
            boolean changed = after.isPresent();
            if (changed) {
                rescued++;
                logger.warn("Recovered run " + expired.run().id() + " of task '"
                        + expired.run().taskId() + "' after its lease expired; "
                        + (retryDelay == null ? "no attempts left" : "retrying in " + retryDelay));
            }
        }
        if (rescued > 0) {
            listener.leasesRecovered(rescued);
        }
        return rescued;
    }
}

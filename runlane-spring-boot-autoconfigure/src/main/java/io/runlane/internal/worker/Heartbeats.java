package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.DatabaseOutage;
import io.runlane.internal.kernel.EngineListener;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One heartbeat of a worker (S-EX-2): extends the leases of its running attempts and of the completions waiting to
 * be written, and tells each attempt about a requested cancellation or a lost lease (S-CA-2, S-EX-11).
 *
 * <p>The heartbeat never waits for a row lock (S-EX-16): a run whose row another transaction holds is skipped and
 * tried again at the next beat, and is not lost. A lease counts as lost only for the attempts in this beat's
 * snapshot, by fencing token: an attempt claimed while the statement ran was not asked about and is not judged, and
 * an attempt whose handler returned meanwhile may have had its outcome committed, so its missing run is not a loss.
 * Nothing a beat throws, errors included, escapes it, so a scheduler never cancels later beats.
 */
final class Heartbeats {

    private static final Log logger = LogFactory.getLog(Heartbeats.class);

    private final RunClaims claims;

    private final String workerId;

    private final Duration lease;

    private final Supplier<Collection<AttemptContext>> running;

    private final Supplier<Set<UUID>> waitingCompletions;

    private final EngineListener listener;

    private final DatabaseOutage outage;

    private final Duration startWindow;

    private volatile Runnable recoverNow = () -> {};

    Heartbeats(
            RunClaims claims,
            String workerId,
            Duration lease,
            Supplier<Collection<AttemptContext>> running,
            Supplier<Set<UUID>> waitingCompletions,
            EngineListener listener) {
        this.claims = claims;
        this.workerId = workerId;
        this.lease = lease;
        this.running = running;
        this.waitingCompletions = waitingCompletions;
        this.listener = listener;
        this.outage = new DatabaseOutage(logger, "Extending leases (heartbeat)", lease.dividedBy(3));
        this.startWindow = lease;
    }

    Heartbeats(
            RunClaims claims,
            String workerId,
            LeaseMargin margin,
            Supplier<Collection<AttemptContext>> running,
            Supplier<Set<UUID>> waitingCompletions,
            EngineListener listener) {
        this.claims = claims;
        this.workerId = workerId;
        this.lease = margin.lease();
        this.running = running;
        this.waitingCompletions = waitingCompletions;
        this.listener = listener;
        this.outage = new DatabaseOutage(logger, "Extending leases (heartbeat)", lease.dividedBy(3));
        this.startWindow = margin.startWindow();
    }

    /** What recovers expired leases at once (maintenance's lease rescue); nothing until the engine sets it. */
    void recoverWith(Runnable recoverNow) {
        this.recoverNow = recoverNow;
    }

    /** Sends one heartbeat; logs every failure instead of throwing it. */
    void beat() {
        try {
            boolean afterOutage = outage.failuresInARow() > 0;
            beatOnce();
            outage.succeeded();
            if (afterOutage) {
                reconcile();
            }
        } catch (Throwable ex) {
            // leases are extended at the next heartbeat; an outage is logged once, not at every heartbeat
            outage.failed(ex);
        }
    }

    /**
     * After an outage (S-EX-32): the runs leased to this worker that it does not have in hand, running, waiting for a
     * slot or waiting for their completion to be written, lost their outcome with the outage (a failover that did
     * not replicate the completion's commit) or their hand-back. Their leases are expired at once and lease recovery
     * runs now, instead of leaving them to run again a lease later. The snapshot of what is in hand is taken before
     * the statement, which leaves alone every run a claim may still start (S-EX-30). Never throws.
     */
    void reconcile() {
        try {
            Set<UUID> holding = new HashSet<>(waitingCompletions.get());
            running.get().forEach(context -> holding.add(context.runId()));
            List<UUID> orphaned = claims.expireOrphanedLeases(workerId, holding, startWindow);
            if (!orphaned.isEmpty()) {
                logger.warn(orphaned.size() + " run(s) leased to this worker were not in its hands after an outage"
                        + " (their outcome was lost, or handing them back failed): their leases are expired and"
                        + " recovery retries them now (S-EX-32): " + orphaned);
                recoverNow.run();
            }
        } catch (Throwable ex) {
            logger.debug("Reconciling this worker's leases after an outage failed; their leases expire instead", ex);
        }
    }

    private void beatOnce() {
        List<AttemptContext> attempts = List.copyOf(running.get());
        Set<UUID> holding = new HashSet<>(waitingCompletions.get());
        attempts.forEach(context -> holding.add(context.runId()));
        if (holding.isEmpty()) {
            return;
        }
        Map<UUID, RunClaims.HeldRun> held = claims.heartbeat(workerId, holding, lease);
        int skipped = 0;
        for (RunClaims.HeldRun run : held.values()) {
            skipped += run.renewed() ? 0 : 1;
        }
        for (AttemptContext context : attempts) {
            RunClaims.HeldRun run = held.get(context.runId());
            if (run == null && context.handlerReturned()) {
                // its outcome committed after the snapshot: the run ended, no lease was lost
                continue;
            }
            // a run ended by the cancellation grace keeps this attempt's lease until the handler returns (S-CA-5)
            if (run == null
                    || run.fencingToken() != context.claimed().fencingToken()
                    || run.status().isTerminal()) {
                if (!context.leaseLost()) {
                    logger.warn("Run " + context.runId() + " attempt " + context.attempt()
                            + " lost its lease; its outcome will be refused");
                }
                context.markLeaseLost();
            } else if (run.status() == RunStatus.CANCELLATION_REQUESTED) {
                context.markCancellationRequested();
            }
        }
        if (skipped > 0) {
            logger.debug(skipped + " lease(s) were locked by another transaction; renewing them at the next heartbeat");
        }
        listener.heartbeatSent(held.size() - skipped, skipped);
    }
}

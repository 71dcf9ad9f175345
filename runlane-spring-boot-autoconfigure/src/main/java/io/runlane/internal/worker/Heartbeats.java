package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.DatabaseOutage;
import io.runlane.internal.EngineListener;
import io.runlane.internal.jdbc.RunClaims;
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
    }

    /** Sends one heartbeat; logs every failure instead of throwing it. */
    void beat() {
        try {
            beatOnce();
            outage.succeeded();
        } catch (Throwable ex) {
            // leases are extended at the next heartbeat; an outage is logged once, not at every heartbeat
            outage.failed(ex);
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

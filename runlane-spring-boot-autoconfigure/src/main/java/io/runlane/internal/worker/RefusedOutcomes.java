package io.runlane.internal.worker;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Says why the database refused an attempt's outcome (S-EX-3). Usually the attempt no longer holds the run: its lease
 * was lost or the run was cancelled, and another attempt or the cancellation has the last word. When the run does not
 * exist at all, something deleted it while it ran, or its row went with commits a failover did not replicate: that
 * points at lost data, so it is logged at {@code ERROR} and counted apart ({@code result=run_missing}, S-EX-31).
 */
final class RefusedOutcomes {

    static final String LEASE_LOST = "lease_lost";

    static final String RUN_MISSING = "run_missing";

    private static final Log logger = LogFactory.getLog(RefusedOutcomes.class);

    private final RunClaims claims;

    RefusedOutcomes(RunClaims claims) {
        this.claims = claims;
    }

    /** Logs the refusal of {@code what} for the context's attempt; returns the attempt's result to count. */
    String refused(AttemptContext context, String what) {
        boolean exists;
        try {
            exists = claims.exists(context.runId());
        } catch (RuntimeException ex) {
            exists = true;
        }
        if (exists) {
            logger.warn(what + " of run " + context.runId() + " attempt " + context.attempt()
                    + " was refused: the attempt no longer holds the run (lease lost or run cancelled)");
            return LEASE_LOST;
        }
        logger.error(what + " of run " + context.runId() + " (task '"
                + context.claimed().run().taskId()
                + "') attempt " + context.attempt() + " was dropped: the run no longer exists. It was deleted while it"
                + " ran, or its row was lost with commits a database failover did not replicate (asynchronous"
                + " replication loses acknowledged commits); its handler's effects happened (S-EX-31)");
        return RUN_MISSING;
    }
}

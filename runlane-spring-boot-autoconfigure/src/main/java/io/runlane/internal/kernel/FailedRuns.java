package io.runlane.internal.kernel;

import io.runlane.Run;
import io.runlane.RunFailure;
import io.runlane.RunStatus;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Says once, at {@code WARN}, that a run ended {@code FAILED} for good (S-EX-33): its task, id, attempts and failure
 * code, apart from the per-attempt lines, so that a log search for failed runs finds each one once whichever path
 * failed it (an attempt's outcome, its timeout, or lease recovery).
 */
public final class FailedRuns {

    private static final Log logger = LogFactory.getLog(FailedRuns.class);

    private FailedRuns() {}

    /** Logs {@code run} if it is {@code FAILED}. */
    public static void logIfFailed(Run run) {
        if (run.status() != RunStatus.FAILED) {
            return;
        }
        RunFailure failure = run.failure();
        logger.warn("Run " + run.id() + " of task '" + run.taskId() + "' FAILED after " + run.attempts() + " of "
                + run.maxAttempts() + " attempt(s)"
                + (failure == null
                        ? ""
                        : " with code '" + failure.code() + "'"
                                + (failure.exceptionClass() == null ? "" : " (" + failure.exceptionClass() + ")"))
                + "; it runs again only if an operator resumes, retries or reruns it");
    }
}

package io.runlane.internal.step;

import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs a transactional step (S-ST-8) in one transaction on Runlane's {@code DataSource}, so that the step's database
 * effects and its record commit together or not at all:
 *
 * <ol>
 *   <li>check that the attempt's claim token still holds the run, key-share locking its row ({@link
 *       StepStore#lockIfHeld}); a zombie attempt stops here, before the step runs, and rolls back ({@link
 *       AttemptFencedOut}, S-ST-11). The key-share lock conflicts with no update of the run, so the worker's
 *       heartbeat keeps renewing the lease however long the step runs (S-ST-15, S-EX-16);
 *   <li>run the step: {@code JdbcTemplate}, {@code JdbcClient}, Spring Data JDBC or JPA on that {@code DataSource}
 *       join the transaction through the engine's transaction manager (S-TR-10);
 *   <li>record the step and its {@code STEP_COMPLETED} event with the plain step's statement ({@link
 *       StepStore#recordIfHeld}), which locks the row for update and checks the token again, and commit. This is
 *       the fence: if the lease was taken over while the step ran, the record finds another token and everything
 *       rolls back; once it has recorded, a takeover waits for the commit and the next attempt finds the step
 *       recorded.
 * </ol>
 *
 * An exception from the step rolls everything back and propagates. The transaction is the engine's {@code READ
 * COMMITTED} one (S-TR-11) with the default propagation: a transaction the handler opened itself on the same
 * {@code DataSource} is joined, and the step commits with it. Its record is then written just before that
 * transaction commits ({@link RecordAtCommit}), not when the step returns: the record's row lock lasts until the
 * commit, and held for as long as the handler keeps its transaction open after the step, it would make every
 * heartbeat skip the run until the lease expired and recovery took the run from a live attempt. Deferred, the lock
 * lasts only for the commit. The fence holds as before, at the commit: an attempt that lost the run meanwhile fails
 * the commit, and the handler's whole transaction rolls back (S-ST-11, S-ST-15).
 */
final class TransactionalSteps {

    /** The step's body: runs it and returns its result as JSON, or {@code null} for none. */
    interface Body {
        @Nullable
        String run() throws Exception;
    }

    private final StepStore store;

    private final TransactionTemplate transactions;

    TransactionalSteps(StepStore store, TransactionTemplate transactions) {
        this.store = store;
        this.transactions = transactions;
    }

    /**
     * Runs and records the step; returns the recorded JSON: this call's, or (after rolling this call's effects back)
     * one recorded before under the same identity. Inside a transaction of the handler's, returns this call's JSON
     * and records it when that transaction commits.
     *
     * @param fencedOut told when the record at the commit of the handler's transaction finds the attempt fenced out
     * @throws AttemptFencedOut when the attempt no longer holds the run; nothing was run or committed
     */
    @Nullable
    String runAndRecord(
            UUID runId,
            long token,
            String worker,
            String name,
            int occurrence,
            String stepId,
            Body body,
            Runnable fencedOut)
            throws Exception {
        try {
            return transactions.execute(status -> {
                if (!store.lockIfHeld(runId, token)) {
                    throw new AttemptFencedOut(runId, name);
                }
                String json;
                try {
                    json = body.run();
                } catch (RuntimeException ex) {
                    throw ex;
                } catch (Exception ex) {
                    throw new StepFailed(ex);
                }
                if (!status.isNewTransaction() && TransactionSynchronizationManager.isSynchronizationActive()) {
                    TransactionSynchronizationManager.registerSynchronization(
                            new RecordAtCommit(runId, token, worker, name, occurrence, stepId, json, fencedOut));
                    return json;
                }
                if (store.recordIfHeld(runId, token, worker, name, occurrence, stepId, json)) {
                    return json;
                }
                Optional<StepStore.StoredResult> recorded = store.find(runId, name, occurrence);
                if (recorded.isEmpty()) {
                    throw new AttemptFencedOut(runId, name);
                }
                status.setRollbackOnly();
                return recorded.get().json();
            });
        } catch (StepFailed failed) {
            throw failed.exception;
        }
    }

    /**
     * Records a step that joined the handler's transaction just before that transaction commits, in it. Recording
     * nothing means the attempt lost the run while the transaction was open (no other attempt can record the step
     * while this one holds it): the exception makes the transaction manager roll everything back and reaches the
     * handler from its commit.
     */
    private final class RecordAtCommit implements TransactionSynchronization {

        private final UUID runId;

        private final long token;

        private final String worker;

        private final String name;

        private final int occurrence;

        private final String stepId;

        private final @Nullable String json;

        private final Runnable fencedOut;

        RecordAtCommit(
                UUID runId,
                long token,
                String worker,
                String name,
                int occurrence,
                String stepId,
                @Nullable String json,
                Runnable fencedOut) {
            this.runId = runId;
            this.token = token;
            this.worker = worker;
            this.name = name;
            this.occurrence = occurrence;
            this.stepId = stepId;
            this.json = json;
            this.fencedOut = fencedOut;
        }

        @Override
        public void beforeCommit(boolean readOnly) {
            if (!store.recordIfHeld(runId, token, worker, name, occurrence, stepId, json)) {
                fencedOut.run();
                throw new AttemptFencedOut(runId, name);
            }
        }
    }

    /** Carries a checked exception of the step through the transaction template, which then rolls back. */
    private static final class StepFailed extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final transient Exception exception;

        StepFailed(Exception exception) {
            super(null, null, false, false);
            this.exception = exception;
        }
    }
}

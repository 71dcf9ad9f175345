package io.runlane.internal.kernel;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs an action once the caller's transaction has committed, or at once without one; never after a rollback. For
 * reports of changes that callers may make inside their own transaction (an operator's cancel, a trigger that
 * supersedes a run), so that nobody is told of a change that could still roll back.
 */
public final class AfterCommit {

    private AfterCommit() {}

    public static void run(Runnable action) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        } else {
            action.run();
        }
    }
}

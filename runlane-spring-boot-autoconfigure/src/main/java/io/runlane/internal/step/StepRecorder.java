package io.runlane.internal.step;

import io.runlane.internal.kernel.GroupCommit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Records the steps of one engine's attempts (S-ST-16): steps that attempts on other threads record at the same moment
 * share one statement and one commit ({@link GroupCommit}); each caller still returns only once the commit that
 * recorded its own step is done, with its own answer.
 *
 * <ol>
 *   <li>A lone caller leads a group of one at once, with no wait for company: the single-step statement, which skips
 *       a run whose row another transaction holds rather than wait for it.
 *   <li>Callers that come while the lanes are taken queue up; the next leader records all of them with one statement
 *       ({@link StepStore#recordAllIfHeld}), which skips locked rows too, so that no group waits for another
 *       transaction.
 *   <li>A step that a group did not record (fenced out, recorded before, or its run's row locked), and every step of a
 *       group whose statement the database refused, goes back to its caller, who records it alone with the statement
 *       that waits for the row lock, and reads the step if that recorded nothing: every caller's answer is the one it
 *       would have had alone (S-ST-1, S-ST-3, S-ST-11).
 * </ol>
 *
 * A handler thread inside a transaction on Runlane's {@code DataSource} records its steps alone, in that transaction,
 * as before: a leader's statement runs in auto-commit, never in a transaction of another caller's.
 */
final class StepRecorder {

    /**
     * At most {@value StepStore#MAX_GROUP} steps per statement; one group in flight among many recording threads, up to
     * four groups while no more than four threads are recording. A step's statement costs the database far more than
     * each step it records (about 0.3 ms of database CPU alone, 0.13 ms per step in groups of four, 0.09 ms in groups
     * of eight, 8 threads on 2 cores), so among many threads one lane, whose groups are the largest, costs the least:
     * 10-step runs drained by 8 worker threads took 2.4 ms of database CPU per run with one lane, 3.3 ms with two and
     * 4.1 ms recording each step alone (medians of five to eight alternating rounds on a shared 2-core machine). Up to
     * four threads each record at once, so a few attempts never wait for one another.
     */
    static final GroupCommit.Limits LIMITS = new GroupCommit.Limits(StepStore.MAX_GROUP, 1, 4);

    private final StepStore store;

    private final GroupCommit<StepRecord, Boolean> groups;

    StepRecorder(StepStore store) {
        this.store = store;
        this.groups = new GroupCommit<>(LIMITS, this::recordGroup, store::recordIfHeld);
    }

    /**
     * Records {@code step}; returns whether it was recorded by this call: {@code false} when the attempt no longer
     * holds the run or the step was already recorded.
     */
    boolean recordIfHeld(StepRecord step) {
        if (TransactionSynchronizationManager.isSynchronizationActive()
                || TransactionSynchronizationManager.isActualTransactionActive()) {
            return store.recordIfHeld(step);
        }
        return groups.write(step);
    }

    /**
     * A group's answers: recorded, or {@code null} for a step its caller records alone. A group of one takes the
     * single-step statement; like the group statement, it skips a run whose row another transaction has locked, so that
     * no lane waits for another transaction.
     */
    private List<@Nullable Boolean> recordGroup(List<StepRecord> steps) {
        if (steps.size() == 1) {
            return Collections.singletonList(store.recordIfHeldAndUnlocked(steps.get(0)) ? Boolean.TRUE : null);
        }
        Set<Integer> recorded = store.recordAllIfHeld(steps);
        List<@Nullable Boolean> answers = new ArrayList<>(steps.size());
        for (int i = 0; i < steps.size(); i++) {
            answers.add(recorded.contains(i) ? Boolean.TRUE : null);
        }
        return answers;
    }
}

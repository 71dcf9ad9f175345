package io.runlane.internal.trigger;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The runs of one batch or group collapsed by idempotency key (S-TR-5): of the runs that share a task and a key only
 * the first is admitted, and the others answer with its run, {@code RETURNED_EXISTING} when it was created, as if
 * they had been triggered right after it.
 */
final class SharedKeys {

    private final List<NewRun> distinct = new ArrayList<>();

    /** For each run, the position in {@link #distinct} of the run admitted for it. */
    private final int[] admittedAs;

    /** For each run, whether another run before it has its key. */
    private final boolean[] repeated;

    private SharedKeys(List<NewRun> runs) {
        admittedAs = new int[runs.size()];
        repeated = new boolean[runs.size()];
        Map<List<String>, Integer> firstWithKey = new HashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            NewRun run = runs.get(i);
            Integer first = run.idempotencyKey() == null
                    ? null
                    : firstWithKey.putIfAbsent(List.of(run.taskId(), run.idempotencyKey()), distinct.size());
            repeated[i] = first != null;
            admittedAs[i] = repeated[i] ? first : distinct.size();
            if (!repeated[i]) {
                distinct.add(run);
            }
        }
    }

    static SharedKeys of(List<NewRun> runs) {
        return new SharedKeys(runs);
    }

    /** The runs to admit, in input order, one per key. */
    List<NewRun> distinct() {
        return distinct;
    }

    /**
     * The answer of every run in input order, from the answers of the {@linkplain #distinct distinct} runs (in their
     * order): a repeated key gets its first run's answer, as an existing run when that one was created.
     */
    List<@Nullable Admission> answers(List<@Nullable Admission> admitted) {
        List<@Nullable Admission> answers = new ArrayList<>(admittedAs.length);
        for (int i = 0; i < admittedAs.length; i++) {
            Admission answer = admitted.get(admittedAs[i]);
            answers.add(
                    repeated[i] && answer instanceof Admission.Created created
                            ? new Admission.Existing(created.run())
                            : answer);
        }
        return answers;
    }
}

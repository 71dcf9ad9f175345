package io.runlane.internal.result;

import io.runlane.Run;
import io.runlane.RunCancelledException;
import io.runlane.RunFailedException;
import io.runlane.RunFailure;
import org.jspecify.annotations.Nullable;

/** Answers a caller waiting for a run that ended (S-RS-2): its result, or the typed exception of its end. */
final class RunOutcomes {

    private RunOutcomes() {}

    /**
     * The result of a terminal run.
     *
     * @throws RunFailedException when it failed
     * @throws RunCancelledException when it was cancelled
     * @throws IllegalArgumentException when it is still active
     */
    public static <R> @Nullable R answer(Run run, Class<R> type, ResultCodec codec) {
        return switch (run.status()) {
            case SUCCEEDED -> codec.readRunResult(run.id(), run.resultJson(), type);
            case FAILED ->
                throw new RunFailedException(
                        run.id(), run.failure() == null ? new RunFailure("unknown", null, null) : run.failure());
            case CANCELLED -> throw new RunCancelledException(run.id());
            default -> throw new IllegalArgumentException("Run " + run.id() + " is still " + run.status());
        };
    }
}

package io.runlane.internal.step;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.runlane.Run;
import io.runlane.RunCancelledException;
import io.runlane.RunFailedException;
import io.runlane.RunFailure;
import io.runlane.internal.result.ResultCodec;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * How an awaited run ended, as recorded by an in-handler {@code awaitResult} (S-RS-4) so that every replay answers
 * the same: its status, its result as JSON, or its failure; or {@code TIMED_OUT}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record AwaitedOutcome(
        String status, @Nullable JsonNode result, @Nullable RunFailure failure) {

    static final String TIMED_OUT = "TIMED_OUT";

    static AwaitedOutcome of(Run run, ResultCodec codec) {
        JsonNode result = run.resultJson() == null ? null : codec.mapper().readTree(run.resultJson());
        return new AwaitedOutcome(run.status().name(), result, run.failure());
    }

    static AwaitedOutcome timedOut() {
        return new AwaitedOutcome(TIMED_OUT, null, null);
    }

    <R> @Nullable R answer(UUID runId, Class<R> type, ResultCodec codec, String step, int occurrence) {
        return switch (status) {
            case "FAILED" ->
                throw new RunFailedException(runId, failure == null ? new RunFailure("unknown", null, null) : failure);
            case "CANCELLED" -> throw new RunCancelledException(runId);
            default -> {
                try {
                    yield result == null || result.isNull()
                            ? null
                            : codec.mapper().treeToValue(result, type);
                } catch (JacksonException ex) {
                    throw new StepResultIncompatibleException(step, occurrence, type, ex);
                }
            }
        };
    }
}

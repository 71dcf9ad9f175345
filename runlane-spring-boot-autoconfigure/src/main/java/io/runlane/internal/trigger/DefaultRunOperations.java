package io.runlane.internal.trigger;

import io.runlane.InvalidKeyException;
import io.runlane.Run;
import io.runlane.RunEvent;
import io.runlane.RunNotFoundException;
import io.runlane.RunOperations;
import io.runlane.internal.jdbc.RunReads;
import io.runlane.internal.jdbc.RunTransitions;
import io.runlane.internal.registry.KeyRules;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** Read operations on runs, scoped to the configured environment (S-OP-1). */
public final class DefaultRunOperations implements RunOperations {

    static final String OPERATOR = "operator";

    private final RunReads reads;

    private final RunTransitions transitions;

    public DefaultRunOperations(RunReads reads, RunTransitions transitions) {
        this.reads = reads;
        this.transitions = transitions;
    }

    @Override
    public Optional<Run> get(UUID runId) {
        return reads.get(Objects.requireNonNull(runId, "runId"));
    }

    @Override
    public List<RunEvent> events(UUID runId) {
        List<RunEvent> events = reads.events(Objects.requireNonNull(runId, "runId"));
        if (events.isEmpty()) {
            throw new RunNotFoundException(runId);
        }
        return events;
    }

    @Override
    public Optional<Run> findActive(String taskId, @Nullable String idempotencyKey, @Nullable String singletonKey) {
        KeyRules.requireValid("taskId", taskId);
        if (idempotencyKey == null && singletonKey == null) {
            throw new InvalidKeyException("idempotencyKey", "or singletonKey must be given");
        }
        KeyRules.requireValidOrNull("idempotencyKey", idempotencyKey);
        KeyRules.requireValidOrNull("singletonKey", singletonKey);
        return reads.findActive(taskId, idempotencyKey, singletonKey);
    }

    @Override
    public Run cancel(UUID runId, @Nullable String reason) {
        Objects.requireNonNull(runId, "runId");
        return transitions
                .cancel(runId, OPERATOR, reason)
                .or(() -> reads.get(runId))
                .orElseThrow(() -> new RunNotFoundException(runId));
    }

    @Override
    public Optional<Run> findCurrent(String taskId, String idempotencyKey) {
        KeyRules.requireValid("taskId", taskId);
        KeyRules.requireValid("idempotencyKey", idempotencyKey);
        return reads.findCurrentOwner(taskId, idempotencyKey);
    }
}

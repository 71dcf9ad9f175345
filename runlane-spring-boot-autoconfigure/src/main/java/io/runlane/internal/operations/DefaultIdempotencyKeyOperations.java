package io.runlane.internal.operations;

import io.runlane.IdempotencyKeyActiveException;
import io.runlane.IdempotencyKeyOperations;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.registry.TaskRegistry;

/** Operator actions on idempotency keys (S-IK-8). */
public final class DefaultIdempotencyKeyOperations implements IdempotencyKeyOperations {

    static final String OPERATOR = "operator";

    private final TaskRegistry tasks;

    private final IdempotencyKeyResets resets;

    public DefaultIdempotencyKeyOperations(TaskRegistry tasks, IdempotencyKeyResets resets) {
        this.tasks = tasks;
        this.resets = resets;
    }

    @Override
    public boolean reset(String taskId, String key) {
        tasks.require(KeyRules.requireValid("taskId", taskId));
        KeyRules.requireValid("idempotencyKey", key);
        IdempotencyKeyResets.Outcome outcome = resets.reset(taskId, key, OPERATOR);
        if (outcome.activeOwner() != null) {
            throw new IdempotencyKeyActiveException(taskId, key, outcome.activeOwner());
        }
        return outcome.reset();
    }
}

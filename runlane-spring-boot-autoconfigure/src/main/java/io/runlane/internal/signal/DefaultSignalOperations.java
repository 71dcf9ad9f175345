package io.runlane.internal.signal;

import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.SignalOperations;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.registry.TaskRegistry;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The {@link SignalOperations} behind {@code RunlaneTemplate.signals()}: validates names, keys and payloads before
 * the database is touched (S-ID-1, S-ID-4), then sends in one statement ({@link SignalMailbox}).
 */
public final class DefaultSignalOperations implements SignalOperations {

    private final SignalMailbox mailbox;

    private final SignalPayloads payloads;

    private final TaskRegistry tasks;

    public DefaultSignalOperations(SignalMailbox mailbox, SignalPayloads payloads, TaskRegistry tasks) {
        this.mailbox = mailbox;
        this.payloads = payloads;
        this.tasks = tasks;
    }

    @Override
    public void send(UUID runId, String name, Object payload) {
        deliver(runId, name, payload, null);
    }

    @Override
    public boolean send(UUID runId, String name, Object payload, String deduplicationKey) {
        return deliver(runId, name, payload, KeyRules.requireValid("deduplicationKey", deduplicationKey));
    }

    @Override
    public UUID sendToSingletonOwner(String taskId, String singletonKey, String name, Object payload) {
        String task = tasks.require(KeyRules.requireValid("taskId", taskId)).id();
        String key = KeyRules.requireValid("singletonKey", singletonKey);
        String json = payloads.toJson(KeyRules.requireValid("name", name), payload);
        SignalMailbox.Sent sent = mailbox.sendToSingletonOwner(task, key, name, json, null)
                .orElseThrow(() -> new RunNotFoundException(
                        "No active run of task '" + task + "' holds singleton key '" + key + "'"));
        return sent.runId();
    }

    private boolean deliver(UUID runId, String name, Object payload, @Nullable String deduplicationKey) {
        Objects.requireNonNull(runId, "runId");
        String json = payloads.toJson(KeyRules.requireValid("name", name), payload);
        SignalMailbox.Sent sent =
                mailbox.send(runId, name, json, deduplicationKey).orElseThrow(() -> new RunNotFoundException(runId));
        if (sent.status().isTerminal()) {
            throw new RunStateException(runId, sent.status(), "signals can only be sent to active runs (S-SG-1)");
        }
        return sent.stored();
    }
}

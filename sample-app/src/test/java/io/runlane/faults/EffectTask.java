package io.runlane.faults;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.PositiveOrZero;
import java.util.UUID;

/**
 * The task every fault scenario triggers. Its handler stands in for a side effect: it records the start of the
 * attempt in the effect log, works for the planned time, and records the end. The budget of attempts is large, so a
 * run never fails because faults cut many of its attempts: a failed owner would release its key and let a later
 * trigger create a second run legitimately, which would hide real duplicates.
 */
@Task(id = EffectTask.ID, maxAttempts = 1000, backoff = "100ms")
class EffectTask implements TaskHandler<EffectTask.Payload> {

    static final String ID = "faults.effect";

    /** One key of a scenario's load; every trigger of the key sends the same payload. */
    record Payload(
            @NotBlank String scenario,
            @NotBlank String key,
            @PositiveOrZero long workMillis) {}

    private final EffectLog effects;

    EffectTask(EffectLog effects) {
        this.effects = effects;
    }

    @Override
    public String idempotencyKey(Payload payload) {
        return payload.scenario() + "." + payload.key();
    }

    @Override
    public void run(Payload payload, RunContext context) throws InterruptedException {
        long startNanos = System.nanoTime();
        UUID effect = effects.started(context.runId(), context.attempt(), payload.scenario(), payload.workMillis());
        Thread.sleep(payload.workMillis());
        effects.ended(effect, startNanos);
    }
}

package io.runlane.faults;

import io.runlane.NonRetryableException;
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
 *
 * <p>A payload that fails its first life ({@link Workload#FAILING_FIRST_LIFE}) fails its first attempt with {@link
 * #FIRST_LIFE_FAILURE} before it records anything, and behaves as any other once an operator resumed it (S-RV-1):
 * the effect log then holds the attempts of its second life only.
 *
 * <p>A transactional payload ({@link Workload#TRANSACTIONAL_STEPS}) does most of its work inside a transactional step
 * (S-ST-8) that first writes the run's row of an application table ({@link StepRows}) and marks in the effect log
 * that it did, so a fault that cuts the step leaves evidence of a written, uncommitted row.
 */
@Task(id = EffectTask.ID, maxAttempts = 1000, backoff = "100ms")
class EffectTask implements TaskHandler<EffectTask.Payload> {

    static final String ID = "faults.effect";

    /** The transactional step's name; its row in {@code run_steps} is the step's record. */
    static final String STEP = "write";

    /** One key of a scenario's load; every trigger of the key sends the same payload. */
    record Payload(
            @NotBlank String scenario,
            @NotBlank String key,
            @PositiveOrZero long workMillis,
            boolean transactional,
            boolean failFirstLife) {}

    /** The code of the first life's failure of a {@link Payload#failFirstLife()} run, which a bulk resume selects. */
    static final String FIRST_LIFE_FAILURE = "upstream_unavailable";

    /** Fails a run at once, whatever its budget, with the code {@link #FIRST_LIFE_FAILURE}. */
    static final class UpstreamUnavailable extends NonRetryableException {
        UpstreamUnavailable() {
            super(FIRST_LIFE_FAILURE, "upstream unavailable in the run's first life", null);
        }
    }

    private final EffectLog effects;

    private final StepRows rows;

    EffectTask(EffectLog effects, StepRows rows) {
        this.effects = effects;
        this.rows = rows;
    }

    @Override
    public String idempotencyKey(Payload payload) {
        return payload.scenario() + "." + payload.key();
    }

    @Override
    public void run(Payload payload, RunContext context) throws Exception {
        if (payload.failFirstLife() && context.attempt() == 1) {
            // Before the effect: the effect log shows only the attempts after the resume.
            throw new UpstreamUnavailable();
        }
        long startNanos = System.nanoTime();
        UUID effect = effects.started(context.runId(), context.attempt(), payload.scenario(), payload.workMillis());
        long stepMillis = payload.transactional() ? Workload.stepMillis(payload.workMillis()) : 0;
        if (payload.transactional()) {
            context.transactionalStep(STEP, step -> {
                rows.write(step, context.attempt());
                effects.stepWritten(effect);
                Thread.sleep(stepMillis);
            });
        }
        Thread.sleep(payload.workMillis() - stepMillis);
        effects.ended(effect, startNanos);
    }
}

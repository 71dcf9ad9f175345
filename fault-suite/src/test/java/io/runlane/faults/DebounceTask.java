package io.runlane.faults;

import io.runlane.DebounceMode;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;
import java.util.UUID;

/**
 * The debounced task of the {@code debounce} scenario (S-DB): triggers of one load key fold into one pending run
 * that starts one {@link #PERIOD} after the last of them, and in {@link DebounceMode#LATEST} mode carries the payload
 * of the last fold. Each trigger of a key sends the next number of the key's sequence ({@link Payload#seq()}), and the
 * handler records in the effect log which number it ran with, so the suite can tell whether the run that ran carried
 * the latest payload folded into it. Like {@link EffectTask}, the budget of attempts is large, so faults never fail a
 * run.
 */
@Task(
        id = DebounceTask.ID,
        debounce = DebounceTask.PERIOD_TEXT,
        debounceMode = DebounceMode.LATEST,
        maxAttempts = 1000,
        backoff = "100ms")
class DebounceTask implements TaskHandler<DebounceTask.Payload> {

    static final String ID = "faults.debounce";

    static final String PERIOD_TEXT = "1s";

    /** The debounce period: a burst's triggers come closer together than this, its bursts further apart or near it. */
    static final Duration PERIOD = Duration.ofSeconds(1);

    /** One trigger of a key: the {@code seq}-th of the key, in the order the load sends them, one after another. */
    record Payload(
            @NotBlank String scenario,
            @NotBlank String key,
            @Positive long seq,
            @PositiveOrZero long workMillis) {}

    private final EffectLog effects;

    DebounceTask(EffectLog effects) {
        this.effects = effects;
    }

    @Override
    public String debounceKey(Payload payload) {
        return payload.scenario() + "." + payload.key();
    }

    @Override
    public void run(Payload payload, RunContext context) throws Exception {
        long startNanos = System.nanoTime();
        UUID effect = effects.started(
                context.runId(), context.attempt(), payload.scenario(), payload.workMillis(), payload.seq());
        Thread.sleep(payload.workMillis());
        effects.ended(effect, startNanos);
    }
}

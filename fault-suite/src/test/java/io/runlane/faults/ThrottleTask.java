package io.runlane.faults;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;

/**
 * The throttled task of the {@code clock-skew} scenario (S-TH-1..3): at most {@link #LIMIT} attempts per throttle key
 * start in any window of {@link #PERIOD}, across the instances, one of which runs with its clock minutes off. Each
 * trigger of a load key is its own run (its idempotency key names the key and the trigger's number, so a retried
 * trigger returns its run), and the load sends more triggers per period than the throttle lets start, so each key
 * stays at its limit while the load lasts. The handler only works for its planned time: the database's {@code
 * CLAIMED} times are the evidence ({@link ThrottleCheck}).
 */
@Task(
        id = ThrottleTask.ID,
        throttle = ThrottleTask.LIMIT,
        throttlePeriod = ThrottleTask.PERIOD_TEXT,
        maxAttempts = 1000,
        backoff = "100ms")
class ThrottleTask implements TaskHandler<ThrottleTask.Payload> {

    static final String ID = "faults.throttle";

    /** Attempt starts per key and period. */
    static final int LIMIT = 4;

    static final String PERIOD_TEXT = "1s";

    static final Duration PERIOD = Duration.ofSeconds(1);

    /** The {@code seq}-th trigger of one load key; its run's throttle key is the scenario's load key. */
    record Payload(
            @NotBlank String scenario,
            @NotBlank String key,
            @Positive long seq,
            @PositiveOrZero long workMillis) {}

    @Override
    public String idempotencyKey(Payload payload) {
        return payload.scenario() + "." + payload.key() + "." + payload.seq();
    }

    @Override
    public String throttleKey(Payload payload) {
        return payload.scenario() + "." + payload.key();
    }

    @Override
    public void run(Payload payload, RunContext context) throws Exception {
        Thread.sleep(payload.workMillis());
    }
}

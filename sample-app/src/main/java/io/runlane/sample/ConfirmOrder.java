package io.runlane.sample;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Confirms an order once: a repeated confirmation returns the first run for the default retention (30 days). */
@Task(id = "orders.confirm")
class ConfirmOrder implements TaskHandler<ConfirmOrder.Payload> {

    private static final Logger logger = LoggerFactory.getLogger(ConfirmOrder.class);

    record Payload(@NotBlank String orderId) {}

    @Override
    public String idempotencyKey(Payload payload) {
        return "order." + payload.orderId();
    }

    @Override
    public void run(Payload payload, RunContext context) {
        logger.info("Confirming order {} in run {}", payload.orderId(), context.runId());
    }
}

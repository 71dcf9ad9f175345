package io.runlane.sample;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refreshes a customer from an upstream system. Repeated requests for one customer return the same run until 24
 * hours after it finishes, and two refreshes of one customer never overlap.
 */
@Task(id = "customers.refresh", idempotencyKeyTtl = "24h")
class RefreshCustomer implements TaskHandler<RefreshCustomer.Payload> {

    private static final Logger logger = LoggerFactory.getLogger(RefreshCustomer.class);

    record Payload(@NotBlank String customerId) {}

    @Override
    public String idempotencyKey(Payload payload) {
        return "refresh." + payload.customerId();
    }

    @Override
    public String singletonKey(Payload payload) {
        return "customer." + payload.customerId();
    }

    @Override
    public void run(Payload payload, RunContext context) {
        logger.info("Refreshing customer {} in run {}", payload.customerId(), context.runId());
    }
}

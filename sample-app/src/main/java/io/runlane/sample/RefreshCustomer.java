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
    public void run(Payload payload, RunContext context) throws InterruptedException {
        logger.info(
                "Refreshing customer {} in run {} (attempt {})",
                payload.customerId(),
                context.runId(),
                context.attempt());
        // Stands in for a slow call to the customer system; a real call would pass context.runId() as the
        // upstream idempotency key, since it is the same for every attempt of this run.
        for (int step = 0; step < 10 && !context.isCancellationRequested(); step++) {
            Thread.sleep(300);
        }
        logger.info("Refreshed customer {}", payload.customerId());
    }
}

package io.runlane.testsupport;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;

/** Task declarations shared by the integration tests; they mirror the product documentation's examples. */
public final class TestTasks {

    private TestTasks() {}

    /** The documentation's task: idempotency key with 24h retention and a singleton key per customer. */
    @Task(id = "customers.refresh", idempotencyKeyTtl = "24h")
    public static class RefreshCustomer implements TaskHandler<RefreshCustomer.Payload> {

        public record Payload(@NotBlank String customerId) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return "refresh." + payload.customerId();
        }

        @Override
        public String singletonKey(Payload payload) {
            return "customer." + payload.customerId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** An order task keyed by order id, with the default retention. */
    @Task(id = "orders.confirm")
    public static class ConfirmOrder implements TaskHandler<ConfirmOrder.Payload> {

        public record Payload(
                @NotBlank @Size(max = 40) String orderId,
                @Positive int quantity) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return "order." + payload.orderId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A singleton-only task: one active sync per account, no idempotency. */
    @Task(id = "accounts.sync")
    public static class SyncAccount implements TaskHandler<SyncAccount.Payload> {

        public record Payload(String accountId) {}

        @Override
        public String singletonKey(Payload payload) {
            return "account." + payload.accountId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** An idempotent task whose key is released as soon as its owner is terminal. */
    @Task(id = "reports.build", idempotencyKeyTtl = "active")
    public static class BuildReport implements TaskHandler<BuildReport.Payload> {

        public record Payload(String reportId) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return "report." + payload.reportId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A task without keys. */
    @Task(id = "mail.send")
    public static class SendMail implements TaskHandler<SendMail.Payload> {

        public record Payload(String to) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Every handler above, for engines that need them all. */
    public static io.runlane.TaskHandler<?>[] all() {
        return new io.runlane.TaskHandler<?>[] {
            new RefreshCustomer(), new ConfirmOrder(), new SyncAccount(), new BuildReport(), new SendMail()
        };
    }
}

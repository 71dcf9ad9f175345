package io.runlane.sample;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskFunction;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;

/**
 * Checks out an order in two durable steps and returns its receipt. The charge step passes its step id to the
 * payment provider as the idempotency key, and once it has returned it never runs again in this run: when shipping
 * fails and the run retries, the customer is not charged twice.
 */
@Task(id = "orders.checkout")
class CheckoutOrder implements TaskFunction<CheckoutOrder.Payload, CheckoutOrder.Receipt> {

    record Payload(@NotBlank String orderId, @Positive long amountCents) {}

    record Receipt(String orderId, String chargeId, String shipmentId) {}

    private final PaymentProvider payments;

    private final ShippingService shipping;

    CheckoutOrder(PaymentProvider payments, ShippingService shipping) {
        this.payments = payments;
        this.shipping = shipping;
    }

    @Override
    public String idempotencyKey(Payload payload) {
        return "checkout." + payload.orderId();
    }

    @Override
    public Receipt run(Payload payload, RunContext context) throws Exception {
        PaymentProvider.Charge charge = context.step(
                "charge", PaymentProvider.Charge.class, step -> payments.charge(payload.amountCents(), step.stepId()));
        String shipmentId = context.step("ship", String.class, step -> shipping.ship(payload.orderId(), step.stepId()));
        return new Receipt(payload.orderId(), charge.id(), shipmentId);
    }
}

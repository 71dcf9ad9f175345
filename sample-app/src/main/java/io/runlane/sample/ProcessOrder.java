package io.runlane.sample;

import io.runlane.RunContext;
import io.runlane.SingletonConflictPolicy;
import io.runlane.Task;
import io.runlane.TaskFunction;
import jakarta.validation.constraints.NotBlank;
import java.time.Duration;
import java.util.Optional;

/**
 * Processes an order once its customer confirms it: Workflow's {@code processOrder} with its order hook, where the
 * singleton key {@code order.<id>} is the hook token. A request for an order that is already being processed does
 * not start another run: {@code SIGNAL_OWNER} delivers it to the active run as the signal {@code request}, in the
 * same transaction that found that run (the atomic "start or resume").
 */
@Task(id = "orders.process", onSingletonConflict = SingletonConflictPolicy.SIGNAL_OWNER)
class ProcessOrder implements TaskFunction<ProcessOrder.Request, ProcessOrder.Outcome> {

    /** The signal that carries later requests for the same order. */
    static final String REQUEST_SIGNAL = "request";

    record Request(@NotBlank String orderId, boolean confirmed) {}

    record Outcome(String orderId, String status) {}

    private final PaymentProvider payments;

    ProcessOrder(PaymentProvider payments) {
        this.payments = payments;
    }

    @Override
    public String singletonKey(Request request) {
        return "order." + request.orderId();
    }

    @Override
    public Outcome run(Request first, RunContext context) throws Exception {
        Request request = first;
        while (!request.confirmed()) {
            Optional<Request> next = context.awaitSignal(REQUEST_SIGNAL, Request.class, Duration.ofHours(24));
            if (next.isEmpty()) {
                return new Outcome(first.orderId(), "cancelled");
            }
            request = next.get();
        }
        context.step("charge", step -> payments.charge(100, step.stepId()));
        return new Outcome(first.orderId(), "processed");
    }
}

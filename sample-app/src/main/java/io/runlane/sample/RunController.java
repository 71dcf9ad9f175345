package io.runlane.sample;

import io.runlane.Run;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.time.Duration;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Triggers runs from HTTP requests and reads them back. */
@RestController
class RunController {

    private final RunlaneTemplate runlane;

    RunController(RunlaneTemplate runlane) {
        this.runlane = runlane;
    }

    /**
     * Triggers a refresh. A client that sends an {@code Idempotency-Key} header owns the request identity, so the
     * header replaces the task's key; a second refresh of the same customer under another key then conflicts with
     * the active one.
     */
    @PostMapping("/customers/{customerId}/refresh")
    @ResponseStatus(HttpStatus.ACCEPTED)
    TriggerResponse refreshCustomer(
            @PathVariable String customerId,
            @RequestHeader(name = "Idempotency-Key", required = false) String requestKey) {
        TriggerOptions options = (requestKey != null)
                ? TriggerOptions.builder()
                        .idempotencyKey("refresh." + customerId + "." + requestKey)
                        .build()
                : TriggerOptions.none();
        return TriggerResponse.of(
                runlane.trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customerId), options));
    }

    @PostMapping("/orders/{orderId}/confirm")
    @ResponseStatus(HttpStatus.ACCEPTED)
    TriggerResponse confirmOrder(@PathVariable String orderId) {
        return TriggerResponse.of(runlane.trigger(ConfirmOrder.class, new ConfirmOrder.Payload(orderId)));
    }

    /** Starts a checkout; a repeated request for the same order returns the first run (its idempotency key). */
    @PostMapping("/orders/{orderId}/checkout")
    @ResponseStatus(HttpStatus.ACCEPTED)
    TriggerResponse checkout(@PathVariable String orderId, @RequestParam long amountCents) {
        return TriggerResponse.of(
                runlane.trigger(CheckoutOrder.class, new CheckoutOrder.Payload(orderId, amountCents)));
    }

    /** Waits up to ten seconds for a checkout's receipt. */
    @GetMapping("/checkouts/{runId}/receipt")
    CheckoutOrder.Receipt receipt(@PathVariable UUID runId) {
        return runlane.runs().awaitResult(runId, CheckoutOrder.Receipt.class, Duration.ofSeconds(10));
    }

    @GetMapping("/runs/{runId}")
    ResponseEntity<Run> run(@PathVariable UUID runId) {
        return ResponseEntity.of(runlane.runs().get(runId));
    }
}

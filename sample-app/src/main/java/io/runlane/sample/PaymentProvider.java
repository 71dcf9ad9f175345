package io.runlane.sample;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

/**
 * Stands in for a payment provider's API. Like Stripe's, it honours an {@code Idempotency-Key}: a repeated request
 * with the same key returns the first charge instead of charging again.
 */
@Component
class PaymentProvider {

    record Charge(String id, long amountCents) {}

    private final Map<String, Charge> chargesByKey = new ConcurrentHashMap<>();

    private final AtomicInteger charges = new AtomicInteger();

    Charge charge(long amountCents, String idempotencyKey) {
        return chargesByKey.computeIfAbsent(idempotencyKey, key -> {
            charges.incrementAndGet();
            return new Charge("ch_" + UUID.randomUUID(), amountCents);
        });
    }

    /** How many distinct charges were made, for the sample's tests. */
    int charges() {
        return charges.get();
    }
}

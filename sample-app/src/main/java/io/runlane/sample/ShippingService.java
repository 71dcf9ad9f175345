package io.runlane.sample;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** Stands in for a carrier's API that is down the first time each order ships. */
@Component
class ShippingService {

    private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

    String ship(String orderId, String idempotencyKey) {
        if (failedOnce.add(orderId)) {
            throw new IllegalStateException("carrier unavailable, try again");
        }
        return "shp_" + UUID.nameUUIDFromBytes(idempotencyKey.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}

package io.runlane.autoconfigure;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import org.springframework.core.convert.converter.Converter;

/**
 * Binds {@code runlane.idempotency.default-ttl} ({@code 24h}, {@code 7d}, {@code active}) to an
 * {@link IdempotencyKeyTtl}, so that a bad value fails binding and Boot reports the property's origin like for any
 * other property.
 */
final class IdempotencyKeyTtlConverter implements Converter<String, IdempotencyKeyTtl> {

    @Override
    public IdempotencyKeyTtl convert(String source) {
        try {
            return IdempotencyKeyTtl.parse(source);
        } catch (ConfigurationInvalidException ex) {
            // Boot's report shows the innermost cause: make it the reason, not the duration parser's complaint.
            throw new ConfigurationInvalidException("runlane.idempotency.default-ttl", ex.reason());
        }
    }
}

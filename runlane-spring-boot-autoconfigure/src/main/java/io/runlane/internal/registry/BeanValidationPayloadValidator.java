package io.runlane.internal.registry;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/** Checks payloads with Jakarta Bean Validation (S-ID-4), listing violations in a stable order. */
public final class BeanValidationPayloadValidator implements PayloadValidator {

    private final Validator validator;

    public BeanValidationPayloadValidator(Validator validator) {
        this.validator = validator;
    }

    /** Every violation, described and sorted; the usual valid payload costs no stream. */
    @Override
    public List<String> violations(Object payload) {
        Set<ConstraintViolation<Object>> violations = validator.validate(payload);
        if (violations.isEmpty()) {
            return List.of();
        }
        return violations.stream()
                .map(BeanValidationPayloadValidator::describe)
                .sorted(Comparator.naturalOrder())
                .toList();
    }

    private static String describe(ConstraintViolation<Object> violation) {
        String path = violation.getPropertyPath().toString();
        return (path.isEmpty() ? "payload" : path) + ": " + violation.getMessage();
    }
}

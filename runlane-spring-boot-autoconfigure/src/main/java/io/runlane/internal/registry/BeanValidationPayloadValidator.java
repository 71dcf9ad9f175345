package io.runlane.internal.registry;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.Comparator;
import java.util.List;

/** Checks payloads with Jakarta Bean Validation (S-ID-4), listing violations in a stable order. */
public final class BeanValidationPayloadValidator implements PayloadValidator {

    private final Validator validator;

    public BeanValidationPayloadValidator(Validator validator) {
        this.validator = validator;
    }

    @Override
    public List<String> violations(Object payload) {
        return validator.validate(payload).stream()
                .map(BeanValidationPayloadValidator::describe)
                .sorted(Comparator.naturalOrder())
                .toList();
    }

    private static String describe(ConstraintViolation<Object> violation) {
        String path = violation.getPropertyPath().toString();
        return (path.isEmpty() ? "payload" : path) + ": " + violation.getMessage();
    }
}

package io.runlane.autoconfigure.diagnostics;

import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.registry.PayloadTypeException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a task's payload or result type that does not survive a round trip through the application's JSON mapper
 * (S-ID-11): the task, the type, the property and the fix, before any run stores a value that cannot be read back.
 */
class PayloadTypeFailureAnalyzer extends AbstractFailureAnalyzer<PayloadTypeException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PayloadTypeException cause) {
        StringBuilder description = new StringBuilder("Task '")
                .append(cause.taskId())
                .append("' (")
                .append(cause.taskClass().getName())
                .append(") declares the ")
                .append(cause.role())
                .append(" type ")
                .append(cause.declaredType())
                .append(", which does not survive a round trip through the application's JsonMapper:\n");
        description.append("\n    Type:     ").append(cause.type());
        if (cause.path() != null) {
            description.append(" (at ").append(cause.path()).append(")");
        }
        if (cause.property() != null) {
            description.append("\n    Property: ").append(cause.property());
        }
        description.append("\n    Problem:  ").append(cause.problem());
        return new FailureAnalysis(
                description.toString(), cause.fix() + " (S-ID-11, " + Guarantees.link("S-ID-11") + ")", cause);
    }
}

package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TaskNotFoundException;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The registry of declared tasks: unique ids at start-up (S-ID-2), typed misses at trigger time (S-ID-5). */
@DisplayName("S-ID-2, S-ID-5 task registry")
class TaskRegistryTests {

    private final TaskDefinitionReader reader = new TaskDefinitionReader(RunlaneSettings.defaults("runlane"));

    @Test
    void twoTasksWithTheSameIdFailNamingBothClasses() {
        assertThatExceptionOfType(TaskDeclarationException.class)
                .isThrownBy(() -> registry(new InvoiceTask(), new DuplicateInvoiceTask()))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("configuration_invalid");
                    assertThat(ex.getMessage())
                            .contains("'invoices.send'")
                            .contains(InvoiceTask.class.getName())
                            .contains(DuplicateInvoiceTask.class.getName());
                });
    }

    @Test
    void idsThatDifferOnlyInCaseAreDifferentTasks() {
        TaskRegistry registry = registry(new InvoiceTask(), new UpperCaseInvoiceTask());

        assertThat(registry.require("invoices.send").handlerClass()).isEqualTo(InvoiceTask.class);
        assertThat(registry.require("Invoices.Send").handlerClass()).isEqualTo(UpperCaseInvoiceTask.class);
    }

    @Test
    void tasksAreFoundByIdAndByHandlerClass() {
        TaskRegistry registry = registry(new InvoiceTask(), new ReceiptTask());

        assertThat(registry.require("receipts.print").handlerClass()).isEqualTo(ReceiptTask.class);
        assertThat(registry.require(InvoiceTask.class).id()).isEqualTo("invoices.send");
        assertThat(registry.find("receipts.print")).isPresent();
        assertThat(registry.all()).extracting(TaskDefinition::id).containsExactly("invoices.send", "receipts.print");
    }

    @Test
    void subclassOfTheRequestedClassIsFound() {
        TaskRegistry registry = registry(new SpecialReceiptTask());

        assertThat(registry.require(ReceiptTask.class).handlerClass()).isEqualTo(SpecialReceiptTask.class);
    }

    @Test
    void unknownTaskIdFailsWithTaskNotFound() {
        TaskRegistry registry = registry(new InvoiceTask());

        assertThat(registry.find("invoices.cancel")).isEmpty();
        assertThatExceptionOfType(TaskNotFoundException.class)
                .isThrownBy(() -> registry.require("invoices.cancel"))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("task_not_found");
                    assertThat(ex.getMessage()).contains("invoices.cancel");
                });
    }

    @Test
    void unregisteredHandlerClassFailsWithTaskNotFound() {
        TaskRegistry registry = registry(new InvoiceTask());

        assertThatExceptionOfType(TaskNotFoundException.class)
                .isThrownBy(() -> registry.require(ReceiptTask.class))
                .satisfies(ex -> {
                    assertThat(ex.code()).isEqualTo("task_not_found");
                    assertThat(ex.getMessage()).contains(ReceiptTask.class.getName());
                });
    }

    @Test
    void emptyRegistryIsAllowed() {
        TaskRegistry registry = new TaskRegistry(List.of());

        assertThat(registry.all()).isEmpty();
        assertThatExceptionOfType(TaskNotFoundException.class).isThrownBy(() -> registry.require("anything"));
    }

    private TaskRegistry registry(TaskHandler<?>... handlers) {
        return new TaskRegistry(Arrays.stream(handlers).map(reader::read).toList());
    }

    public record Invoice(String invoiceId) {}

    @Task(id = "invoices.send")
    public static class InvoiceTask implements TaskHandler<Invoice> {
        @Override
        public void run(Invoice payload, RunContext context) {}
    }

    @Task(id = "invoices.send")
    public static class DuplicateInvoiceTask implements TaskHandler<Invoice> {
        @Override
        public void run(Invoice payload, RunContext context) {}
    }

    @Task(id = "Invoices.Send")
    public static class UpperCaseInvoiceTask implements TaskHandler<Invoice> {
        @Override
        public void run(Invoice payload, RunContext context) {}
    }

    @Task(id = "receipts.print")
    public static class ReceiptTask implements TaskHandler<Invoice> {
        @Override
        public void run(Invoice payload, RunContext context) {}
    }

    @Task(id = "receipts.print-special")
    public static class SpecialReceiptTask extends ReceiptTask {}
}

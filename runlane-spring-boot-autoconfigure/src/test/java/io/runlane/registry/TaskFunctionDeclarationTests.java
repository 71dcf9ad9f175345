package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.FunctionTaskHandler;
import io.runlane.internal.registry.TaskDeclarationException;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code @Task} on a {@link TaskFunction} (S-RS-1): read like a handler, payload type from its first argument. */
class TaskFunctionDeclarationTests {

    private final TaskDefinitionReader reader = new TaskDefinitionReader(RunlaneSettings.defaults("runlane"));

    @Task(id = "function.quote")
    static class Quote implements TaskFunction<Quote.Payload, Integer> {

        record Payload(String sku) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return "quote-" + payload.sku();
        }

        @Override
        public Integer run(Payload payload, RunContext context) {
            return payload.sku().length();
        }
    }

    @Task(id = "function.raw")
    @SuppressWarnings("rawtypes")
    static class Raw implements TaskFunction {

        @Override
        public Object run(Object payload, RunContext context) {
            return null;
        }
    }

    @Test
    @DisplayName("S-RS-1: a @Task TaskFunction is read with its payload type, its key resolvers and its class")
    void taskFunctionIsReadLikeAHandler() {
        Quote quote = new Quote();
        TaskDefinition definition = reader.read(quote);

        assertThat(definition.id()).isEqualTo("function.quote");
        assertThat(definition.payloadClass()).isEqualTo(Quote.Payload.class);
        assertThat(definition.handlerClass()).isEqualTo(Quote.class);
        assertThat(definition.handler().idempotencyKey(new Quote.Payload("a"))).isEqualTo("quote-a");
        assertThat(definition.handler())
                .isInstanceOfSatisfying(
                        FunctionTaskHandler.class,
                        handler -> assertThat(handler.function()).isSameAs(quote));
        assertThat(new TaskRegistry(List.of(definition)).require(Quote.class)).isSameAs(definition);
    }

    @Test
    @DisplayName("S-ID-2: a raw TaskFunction fails with a message naming the class")
    void rawTaskFunctionIsRefused() {
        assertThatThrownBy(() -> reader.read(new Raw()))
                .isInstanceOf(TaskDeclarationException.class)
                .hasMessageContaining(Raw.class.getName())
                .hasMessageContaining("TaskFunction with a concrete payload type");
    }
}

package io.runlane.autoconfigure.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import java.sql.Connection;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.aot.BeanFactoryInitializationCode;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ClassUtils;

/**
 * Runlane's runtime hints (issue 31, item 8): what it reads from resources, by reflection and through a proxy, and
 * binding hints for the payload and result types of the application's {@code @Task} beans, found through
 * {@code META-INF/spring/aot.factories} as Spring's AOT processing finds them.
 */
class RunlaneRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    @Test
    @DisplayName("Issue 31.8: aot.factories registers Runlane's hints and its @Task processor")
    void aotFactoriesNameTheRegistrarAndTheProcessor() {
        SpringFactoriesLoader aot = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");

        assertThat(aot.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(RunlaneRuntimeHints.class);
        assertThat(aot.load(BeanFactoryInitializationAotProcessor.class))
                .hasAtLeastOneElementOfType(TaskTypesAotProcessor.class);
    }

    @Test
    @DisplayName("Issue 31.8: the changelog, its SQL changesets and the console's files are resources of the image")
    void changelogAndConsoleResourcesAreRegistered() {
        new RunlaneRuntimeHints().registerHints(hints, getClass().getClassLoader());

        assertThat(RuntimeHintsPredicates.resource().forResource("db/runlane/changelog-master.xml"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("db/runlane/changes/001-foundation.sql"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/runlane-console/index.html"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/runlane-console/js/pages/runs.js"))
                .accepts(hints);
    }

    @Test
    @DisplayName("Issue 31.8: the connection proxy and the JSON read models of the API, endpoint and console")
    void proxyAndReadModelsAreRegistered() {
        new RunlaneRuntimeHints().registerHints(hints, getClass().getClassLoader());

        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(Connection.class))
                .accepts(hints);
        List<String> named = Stream.concat(
                        RunlaneRuntimeHints.ENDPOINT_READ_MODELS.stream(),
                        RunlaneRuntimeHints.CONSOLE_READ_MODELS.stream())
                .toList();
        for (String name : named) {
            assertThat(ClassUtils.isPresent(name, getClass().getClassLoader()))
                    .as("%s is still a class of Runlane", name)
                    .isTrue();
            Class<?> type = ClassUtils.resolveClassName(name, getClass().getClassLoader());
            assertThat(RuntimeHintsPredicates.reflection().onType(type))
                    .as(name)
                    .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection()
                            .onType(type)
                            .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                    .as(name)
                    .accepts(hints);
        }
        for (Class<?> type : RunlaneRuntimeHints.PUBLIC_READ_MODELS) {
            assertThat(RuntimeHintsPredicates.reflection().onType(type))
                    .as(type.getName())
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(io.runlane.Run.class, "status"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(io.runlane.RunStatus.class))
                .as("types the read models hold are registered too")
                .accepts(hints);
    }

    @Test
    @DisplayName("Issue 31.8: every @Task bean's payload type and TaskFunction's result type get binding hints")
    void taskPayloadAndResultTypesGetBindingHints() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("refresh", new RootBeanDefinition(RefreshCustomer.class));
        beanFactory.registerBeanDefinition("quote", new RootBeanDefinition(QuoteOrder.class));
        beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(String.class));

        BeanFactoryInitializationAotContribution contribution =
                new TaskTypesAotProcessor().processAheadOfTime(beanFactory);
        assertThat(contribution).isNotNull();
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get("io.runlane.sample", "Application")),
                new InMemoryGeneratedFiles());
        contribution.applyTo(generation, mock(BeanFactoryInitializationCode.class));
        RuntimeHints generated = generation.getRuntimeHints();

        assertThat(RuntimeHintsPredicates.reflection().onType(Customer.class)).accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "customerId"))
                .accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(Customer.class)
                        .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                .accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onType(Envelope.class)).accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onType(Order.class))
                .as("a generic argument of the payload type")
                .accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Envelope.class, "getItem"))
                .accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onType(Quote.class))
                .as("the TaskFunction's result type")
                .accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onType(Line.class))
                .as("a type the result holds")
                .accepts(generated);
        assertThat(RuntimeHintsPredicates.reflection().onType(RefreshCustomer.class))
                .as("the handler class, whose annotations and generic interfaces Runlane reads")
                .accepts(generated);
    }

    @Test
    @DisplayName("Issue 31.8: an application without @Task beans contributes nothing")
    void noTasksNoContribution() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(String.class));

        assertThat(new TaskTypesAotProcessor().processAheadOfTime(beanFactory)).isNull();
    }

    public record Customer(String customerId) {}

    public record Order(String orderId, int quantity) {}

    public static class Envelope<T> {

        private T item;

        public T getItem() {
            return item;
        }

        public void setItem(T item) {
            this.item = item;
        }
    }

    public record Line(String sku, long cents) {}

    public record Quote(List<Line> lines) {}

    @Task(id = "customers.refresh")
    static class RefreshCustomer implements TaskHandler<Customer> {

        @Override
        public void run(Customer payload, RunContext context) {}
    }

    @Task(id = "orders.quote")
    static class QuoteOrder implements TaskFunction<Envelope<Order>, Quote> {

        @Override
        public Quote run(Envelope<Order> payload, RunContext context) {
            return new Quote(List.of());
        }
    }
}

package io.runlane.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunDrainer;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.beans.ConstructorProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * S-ID-11 through {@code SpringApplication}: a payload type that would lose data or fail every run stops start-up
 * with a report naming the task, the type, the property and the fix (issue 31, item 1); the shapes Jackson maps start
 * and their runs see what was triggered.
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class PayloadTypeStartupIntegrationTests {

    private static final Queue<Object> RECEIVED = new ConcurrentLinkedQueue<>();

    @FreshSchema("payload_types")
    private String schema;

    @BeforeEach
    void forgetWhatWasSeen() {
        RECEIVED.clear();
    }

    @Test
    @DisplayName("S-ID-11: a payload class with a private field and no accessors stops start-up naming the field")
    void privateFieldPayloadStopsStartUp(CapturedOutput output) {
        String report = failureReport(output, HiddenNoteApplication.class);

        assertThat(report)
                .contains("Task 'notes.keep' (" + KeepNote.class.getName() + ") declares the payload type "
                        + HiddenNote.class.getName()
                        + ", which does not survive a round trip through the application's JsonMapper:")
                .contains("Type:     " + HiddenNote.class.getName())
                .contains("Property: text")
                .contains("Problem:  is a field, but Jackson writes no property of HiddenNote, so it is stored as {}"
                        + " and its value is lost.")
                .contains("Action:")
                .contains("Give HiddenNote a public getter for 'text' (or annotate the field with @JsonProperty), or"
                        + " declare it as a record. (S-ID-11, see docs/guarantees.md#s-id-11)");
        assertThat(report).doesNotContain("\tat ");
    }

    @Test
    @DisplayName("S-ID-11: a getter without a matching creator parameter stops start-up naming the property")
    void getterWithoutCreatorParameterStopsStartUp(CapturedOutput output) {
        String report = failureReport(output, CodeApplication.class);

        assertThat(report)
                .contains("Task 'codes.apply' (" + ApplyCode.class.getName() + ") declares the payload type "
                        + Code.class.getName())
                .contains("Property: value")
                .contains("is written (by getValue()) but never read back: no constructor parameter, setter or field"
                        + " takes 'value' (the constructor takes [prefix, suffix]), so the handler would see it null.")
                .contains("Name a constructor parameter of Code 'value' (with @JsonCreator and"
                        + " @JsonProperty(\"value\"), @ConstructorProperties or -parameters), or add a setter for it");
    }

    @Test
    @DisplayName("S-ID-11: an interface payload type stops start-up instead of failing every run")
    void interfacePayloadStopsStartUp(CapturedOutput output) {
        String report = failureReport(output, ShapeApplication.class);

        assertThat(report)
                .contains("Task 'shapes.draw' (" + DrawShape.class.getName() + ") declares the payload type "
                        + Shape.class.getName())
                .contains("Problem:  is an interface without @JsonTypeInfo, so Jackson cannot construct one when it"
                        + " reads a stored value: every run would fail with payload_invalid.")
                .contains("Declare a concrete class or a record instead of Shape, or annotate Shape with"
                        + " @JsonTypeInfo and @JsonSubTypes naming its implementations.");
    }

    @Test
    @DisplayName("S-ID-11: a TaskFunction whose result cannot be read back stops start-up naming the result type")
    void unreadableResultStopsStartUp(CapturedOutput output) {
        String report = failureReport(output, HiddenResultApplication.class);

        assertThat(report)
                .contains("Task 'notes.write' (" + WriteNote.class.getName() + ") declares the result type "
                        + HiddenNote.class.getName())
                .contains("Property: text");
    }

    @Test
    @DisplayName("S-ID-11: records, beans, creators, named constructors and generic wrappers start and round-trip")
    void shapesJacksonMapsStartAndRoundTrip() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(GoodShapesApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(arguments(Map.of("runlane.worker.enabled", "true")))) {
            RunlaneTemplate runlane = context.getBean(RunlaneTemplate.class);
            Bean bean = new Bean();
            bean.setCustomerId("c-1");
            bean.setVisits(3);
            Envelope<Order> envelope = new Envelope<>();
            envelope.setItem(new Order("o-2", 2));
            UUID counted =
                    runlane.trigger(CountOrder.class, new Order("o-1", 4)).runId();
            runlane.trigger(StoreBean.class, bean);
            runlane.trigger(StoreValue.class, new ValueShape("sku-1", 5));
            runlane.trigger(StoreCreated.class, new Created("id-1"));
            runlane.trigger(StoreNamed.class, new Named("c-2", 7));
            runlane.trigger(StoreEnvelope.class, envelope);
            runlane.trigger(StoreMap.class, Map.of("k", "v"));

            context.getBean(RunDrainer.class).drain(Duration.ofSeconds(30));

            assertThat(runlane.runs().result(counted, Integer.class)).contains(4);
            assertThat(runlane.runs().get(counted).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(RECEIVED)
                    .containsExactlyInAnyOrder(
                            new Order("o-1", 4),
                            "bean c-1/3",
                            "value sku-1/5",
                            "created id-1",
                            "named c-2/7",
                            "envelope " + new Order("o-2", 2),
                            Map.of("k", "v"));
        }
    }

    private String failureReport(CapturedOutput output, Class<?> application) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(application)
                        .web(WebApplicationType.NONE)
                        .bannerMode(Banner.Mode.OFF)
                        .logStartupInfo(false)
                        .run(arguments(Map.of()))
                        .close())
                .isNotNull();
        String all = output.getAll();
        int start = all.lastIndexOf("APPLICATION FAILED TO START");
        assertThat(start).as("the failure report in:%n%s", all).isNotNegative();
        return all.substring(start);
    }

    private String[] arguments(Map<String, String> extra) {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("spring.datasource.url", TestDatabase.jdbcUrl());
        args.put("spring.datasource.hikari.maximum-pool-size", "4");
        args.put("runlane.schema.name", schema);
        args.put("runlane.worker.enabled", "false");
        args.putAll(extra);
        return args.entrySet().stream()
                .map(arg -> "--" + arg.getKey() + "=" + arg.getValue())
                .toArray(String[]::new);
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    static class PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(KeepNote.class)
    static class HiddenNoteApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(ApplyCode.class)
    static class CodeApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(DrawShape.class)
    static class ShapeApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(WriteNote.class)
    static class HiddenResultApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import({
        CountOrder.class,
        StoreBean.class,
        StoreValue.class,
        StoreCreated.class,
        StoreNamed.class,
        StoreEnvelope.class,
        StoreMap.class
    })
    static class GoodShapesApplication extends PlainApplication {}

    public static class HiddenNote {

        @SuppressWarnings("unused")
        private String text = "remember";
    }

    public static class Code {

        private final String value;

        public Code(String prefix, String suffix) {
            this.value = prefix + suffix;
        }

        public String getValue() {
            return value;
        }
    }

    public interface Shape {

        String getName();
    }

    public record Order(String orderId, int quantity) {}

    public static class Bean {

        private String customerId;

        private int visits;

        public String getCustomerId() {
            return customerId;
        }

        public void setCustomerId(String customerId) {
            this.customerId = customerId;
        }

        public int getVisits() {
            return visits;
        }

        public void setVisits(int visits) {
            this.visits = visits;
        }
    }

    public static final class ValueShape {

        private final String sku;

        private final int count;

        @ConstructorProperties({"sku", "count"})
        public ValueShape(String sku, int count) {
            this.sku = sku;
            this.count = count;
        }

        public String getSku() {
            return sku;
        }

        public int getCount() {
            return count;
        }
    }

    public static final class Created {

        private final String id;

        @JsonCreator
        public Created(@JsonProperty("id") String identifier) {
            this.id = identifier;
        }

        public String getId() {
            return id;
        }
    }

    /** A Kotlin data class's shape: final fields, a constructor whose parameter names are the properties. */
    public static final class Named {

        private final String customerId;

        private final int visits;

        public Named(String customerId, int visits) {
            this.customerId = customerId;
            this.visits = visits;
        }

        public String getCustomerId() {
            return customerId;
        }

        public int getVisits() {
            return visits;
        }
    }

    public static class Envelope<T> {

        private T item;

        public T getItem() {
            return item;
        }

        public void setItem(T item) {
            this.item = item;
        }
    }

    @Task(id = "notes.keep")
    static class KeepNote implements TaskHandler<HiddenNote> {

        @Override
        public void run(HiddenNote payload, RunContext context) {}
    }

    @Task(id = "codes.apply")
    static class ApplyCode implements TaskHandler<Code> {

        @Override
        public void run(Code payload, RunContext context) {}
    }

    @Task(id = "shapes.draw")
    static class DrawShape implements TaskHandler<Shape> {

        @Override
        public void run(Shape payload, RunContext context) {}
    }

    @Task(id = "notes.write")
    static class WriteNote implements TaskFunction<Order, HiddenNote> {

        @Override
        public HiddenNote run(Order payload, RunContext context) {
            return new HiddenNote();
        }
    }

    @Task(id = "good.count")
    static class CountOrder implements TaskFunction<Order, Integer> {

        @Override
        public Integer run(Order payload, RunContext context) {
            RECEIVED.add(payload);
            return payload.quantity();
        }
    }

    @Task(id = "good.bean")
    static class StoreBean implements TaskHandler<Bean> {

        @Override
        public void run(Bean payload, RunContext context) {
            RECEIVED.add("bean " + payload.getCustomerId() + "/" + payload.getVisits());
        }
    }

    @Task(id = "good.value")
    static class StoreValue implements TaskHandler<ValueShape> {

        @Override
        public void run(ValueShape payload, RunContext context) {
            RECEIVED.add("value " + payload.getSku() + "/" + payload.getCount());
        }
    }

    @Task(id = "good.created")
    static class StoreCreated implements TaskHandler<Created> {

        @Override
        public void run(Created payload, RunContext context) {
            RECEIVED.add("created " + payload.getId());
        }
    }

    @Task(id = "good.named")
    static class StoreNamed implements TaskHandler<Named> {

        @Override
        public void run(Named payload, RunContext context) {
            RECEIVED.add("named " + payload.getCustomerId() + "/" + payload.getVisits());
        }
    }

    @Task(id = "good.envelope")
    static class StoreEnvelope implements TaskHandler<Envelope<Order>> {

        @Override
        public void run(Envelope<Order> payload, RunContext context) {
            RECEIVED.add("envelope " + payload.getItem());
        }
    }

    @Task(id = "good.map")
    static class StoreMap implements TaskHandler<Map<String, Object>> {

        @Override
        public void run(Map<String, Object> payload, RunContext context) {
            RECEIVED.add(payload);
        }
    }
}

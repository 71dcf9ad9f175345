package io.runlane.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.PayloadTypeCheck;
import io.runlane.internal.registry.PayloadTypeException;
import io.runlane.internal.registry.PayloadValidator;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import java.beans.ConstructorProperties;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * S-ID-11: a payload type (and a {@code TaskFunction}'s result type) must survive a round trip through the
 * application's {@link JsonMapper}; the check asks the mapper itself, so every shape Jackson maps still passes.
 */
@DisplayName("S-ID-11 payload types round-trip through the application's JsonMapper")
class PayloadTypeRoundTripTests {

    private final TaskDefinitionReader reader = new TaskDefinitionReader(RunlaneSettings.defaults("runlane"));

    private final JsonMapper mapper = JsonMapper.builder().findAndAddModules().build();

    @Test
    @DisplayName("S-ID-11: a class with a private field and no accessors is refused, naming the field")
    void privateFieldWithoutAccessorsIsRefused() {
        assertThat(mapper.writeValueAsString(new HiddenNote()))
                .as("what a run would store")
                .isEqualTo("{}");

        PayloadTypeException ex = refused(new HiddenNoteTask());

        assertThat(ex.taskId()).isEqualTo("notes.hidden");
        assertThat(ex.taskClass()).isEqualTo(HiddenNoteTask.class);
        assertThat(ex.role()).isEqualTo("payload");
        assertThat(ex.type()).isEqualTo(HiddenNote.class.getName());
        assertThat(ex.path()).isNull();
        assertThat(ex.property()).isEqualTo("text");
        assertThat(ex.problem()).contains("Jackson writes no property of HiddenNote, so it is stored as {}");
        assertThat(ex.fix())
                .contains("Give HiddenNote a public getter for 'text'")
                .contains("record");
        assertThat(ex.getMessage())
                .contains(HiddenNoteTask.class.getName())
                .contains(HiddenNote.class.getName())
                .contains("'text'");
    }

    @Test
    @DisplayName("S-ID-11: a getter without a matching creator parameter is refused, naming the property")
    void getterWithoutCreatorParameterIsRefused() {
        assertThat(mapper.readValue(mapper.writeValueAsString(new Code("a", "b")), Code.class)
                        .getValue())
                .as("what the handler would see")
                .isEqualTo("nullnull");

        PayloadTypeException ex = refused(new CodeTask());

        assertThat(ex.type()).isEqualTo(Code.class.getName());
        assertThat(ex.property()).isEqualTo("value");
        assertThat(ex.problem())
                .contains("is written (by getValue()) but never read back")
                .contains("the constructor takes [first, second]");
        assertThat(ex.fix())
                .contains("Name a constructor parameter of Code 'value'")
                .contains("@JsonIgnore");
    }

    @Test
    @DisplayName("S-ID-11: a one-argument constructor whose parameter names no property is refused")
    void oneArgumentConstructorNotNamingThePropertyIsRefused() {
        PayloadTypeException ex = refused(new SingleCodeTask());

        assertThat(ex.type()).isEqualTo(SingleCode.class.getName());
        assertThat(ex.property()).isEqualTo("value");
    }

    @Test
    @DisplayName("S-ID-11: an interface payload type is refused instead of failing every run with payload_invalid")
    void interfacePayloadIsRefused() {
        PayloadTypeException ex = refused(new ShapeTask());

        assertThat(ex.type()).isEqualTo(Shape.class.getName());
        assertThat(ex.property()).isNull();
        assertThat(ex.problem())
                .contains("is an interface without @JsonTypeInfo")
                .contains("payload_invalid");
        assertThat(ex.fix()).contains("Declare a concrete class or a record").contains("@JsonTypeInfo");
    }

    @Test
    @DisplayName("S-ID-11: a class Jackson cannot construct is refused")
    void classWithoutUsableConstructorIsRefused() {
        PayloadTypeException ex = refused(new LockedTask());

        assertThat(ex.type()).isEqualTo(Locked.class.getName());
        assertThat(ex.problem()).contains("Jackson finds no way to construct it");
        assertThat(ex.fix()).contains("@JsonCreator");
    }

    @Test
    @DisplayName("S-ID-11: a type held by the payload is checked too, and the report says where it sits")
    void nestedTypeIsChecked() {
        PayloadTypeException ex = refused(new NotedOrderTask());

        assertThat(ex.declaredType()).isEqualTo(NotedOrder.class.getName());
        assertThat(ex.type()).isEqualTo(HiddenNote.class.getName());
        assertThat(ex.path()).isEqualTo("notes");
        assertThat(ex.property()).isEqualTo("text");
    }

    @Test
    @DisplayName("S-ID-11: a TaskFunction's result type is checked like a payload type")
    void resultTypeIsChecked() {
        PayloadTypeException ex = refused(new HiddenResultTask());

        assertThat(ex.role()).isEqualTo("result");
        assertThat(ex.type()).isEqualTo(HiddenNote.class.getName());
        assertThat(ex.getMessage()).contains("declares result type " + HiddenNote.class.getName());
    }

    @Test
    @DisplayName("S-ID-4: a handler extending a generic base class has its payload read as the type it binds")
    void payloadTypeBoundThroughABaseClassIsResolved() {
        TaskDefinition order = reader.read(new RecordTask());
        TaskDefinition envelope = reader.read(new EnvelopeTask());
        PayloadCodec codec = new PayloadCodec(mapper, PayloadValidator.NONE);

        assertThat(order.payloadType()).isEqualTo(Order.class);
        assertThat(codec.fromJson(order, "{\"orderId\":\"o-1\",\"quantity\":2}"))
                .isEqualTo(new Order("o-1", 2));
        assertThat(envelope.payloadType().getTypeName())
                .isEqualTo(Envelope.class.getName() + "<" + Order.class.getName() + ">");
        assertThat(codec.fromJson(envelope, "{\"item\":{\"orderId\":\"o-2\",\"quantity\":1}}"))
                .isInstanceOfSatisfying(
                        Envelope.class, read -> assertThat(read.getItem()).isEqualTo(new Order("o-2", 1)));
    }

    @ParameterizedTest(name = "S-ID-11: {0} passes")
    @MethodSource("goodShapes")
    void typesJacksonMapsPass(String shape, Object task) {
        TaskDefinition definition = reader.read(task);

        assertThatNoException().isThrownBy(() -> new PayloadTypeCheck(mapper).check(List.of(definition)));
    }

    @Test
    @DisplayName("S-ID-11: the application's naming strategy counts, as it does when a run is stored")
    void namingStrategyOfTheMapperCounts() {
        JsonMapper snakeCase = JsonMapper.builder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .build();

        assertThatNoException()
                .isThrownBy(() -> new PayloadTypeCheck(snakeCase).check(List.of(reader.read(new BeanTask()))));
        assertThatNoException()
                .isThrownBy(() -> new PayloadTypeCheck(snakeCase).check(List.of(reader.read(new KotlinStyleTask()))));
    }

    static Stream<Object[]> goodShapes() {
        return Stream.of(
                new Object[] {"a record", new RecordTask()},
                new Object[] {"a record without components", new EmptyRecordTask()},
                new Object[] {"a class with getters and setters (Lombok @Data)", new BeanTask()},
                new Object[] {"an all-args constructor with @ConstructorProperties (Lombok @Value)", new ValueTask()},
                new Object[] {"a @JsonCreator constructor", new CreatorTask()},
                new Object[] {"a @JsonCreator factory method", new FactoryTask()},
                new Object[] {"a Kotlin-style class with named constructor parameters", new KotlinStyleTask()},
                new Object[] {"a generic wrapper", new EnvelopeTask()},
                new Object[] {"a derived getter marked @JsonIgnore", new DerivedIgnoredTask()},
                new Object[] {"a derived property marked READ_ONLY", new DerivedReadOnlyTask()},
                new Object[] {"a polymorphic interface with @JsonTypeInfo", new PolymorphicTask()},
                new Object[] {"a @JsonValue type", new SkuTask()},
                new Object[] {"JDK value types in a record", new ValuesTask()},
                new Object[] {"JsonNode", new JsonNodeTask()},
                new Object[] {"Map<String, Object>", new MapTask()},
                new Object[] {"String", new StringTask()},
                new Object[] {"Integer", new IntegerTask()},
                new Object[] {"List<String>", new ListTask()},
                new Object[] {"List of records", new RecordListTask()},
                new Object[] {"an enum", new EnumTask()},
                new Object[] {"a TaskFunction with an Integer result", new CountFunction()},
                new Object[] {"a TaskFunction with a Void result", new VoidFunction()});
    }

    private PayloadTypeException refused(Object task) {
        TaskDefinition definition = reader.read(task);
        return assertThatExceptionOfType(PayloadTypeException.class)
                .isThrownBy(() -> new PayloadTypeCheck(mapper).check(List.of(definition)))
                .actual();
    }

    abstract static class Handles<P> implements TaskHandler<P> {

        @Override
        public void run(P payload, RunContext context) {}
    }

    public static class HiddenNote {

        @SuppressWarnings("unused")
        private String text = "remember";
    }

    public static class Code {

        private final String value;

        public Code(String first, String second) {
            this.value = first + second;
        }

        public String getValue() {
            return value;
        }
    }

    public static class SingleCode {

        private final String value;

        public SingleCode(String code) {
            this.value = code;
        }

        public String getValue() {
            return value;
        }
    }

    public interface Shape {

        String getName();
    }

    public static class Locked {

        private String name;

        private Locked(int ignored) {}

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }
    }

    public record NotedOrder(String orderId, List<HiddenNote> notes) {}

    public record Order(String orderId, int quantity) {}

    public record Nothing() {}

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

    public static final class Made {

        private final String id;

        private Made(String id) {
            this.id = id;
        }

        @JsonCreator
        public static Made of(@JsonProperty("id") String id) {
            return new Made(id);
        }

        public String getId() {
            return id;
        }
    }

    /** What the Kotlin compiler makes of {@code data class Customer(val customerId: String, val visits: Int)}. */
    public static final class KotlinStyle {

        private final String customerId;

        private final int visits;

        public KotlinStyle(String customerId, int visits) {
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

        private String source;

        public T getItem() {
            return item;
        }

        public void setItem(T item) {
            this.item = item;
        }

        public String getSource() {
            return source;
        }

        public void setSource(String source) {
            this.source = source;
        }
    }

    public record Priced(BigDecimal unitPrice, int quantity) {

        @JsonIgnore
        public BigDecimal getTotal() {
            return unitPrice.multiply(BigDecimal.valueOf(quantity));
        }
    }

    public record Labelled(String label) {

        @JsonProperty(access = JsonProperty.Access.READ_ONLY)
        public int getLength() {
            return label.length();
        }
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
    @JsonSubTypes({@JsonSubTypes.Type(value = Circle.class, name = "circle")})
    public interface Figure {}

    public record Circle(double radius) implements Figure {}

    public record Sku(@JsonValue String code) {}

    public record Values(UUID id, Instant at, BigDecimal amount, Optional<String> note, Map<String, Order> orders) {}

    public enum Colour {
        RED,
        GREEN
    }

    @Task(id = "notes.hidden")
    static class HiddenNoteTask extends Handles<HiddenNote> {}

    @Task(id = "codes.pair")
    static class CodeTask extends Handles<Code> {}

    @Task(id = "codes.single")
    static class SingleCodeTask extends Handles<SingleCode> {}

    @Task(id = "shapes.draw")
    static class ShapeTask extends Handles<Shape> {}

    @Task(id = "locked.open")
    static class LockedTask extends Handles<Locked> {}

    @Task(id = "orders.noted")
    static class NotedOrderTask extends Handles<NotedOrder> {}

    @Task(id = "notes.compute")
    static class HiddenResultTask implements TaskFunction<Order, HiddenNote> {

        @Override
        public HiddenNote run(Order payload, RunContext context) {
            return new HiddenNote();
        }
    }

    @Task(id = "good.record")
    static class RecordTask extends Handles<Order> {}

    @Task(id = "good.empty")
    static class EmptyRecordTask extends Handles<Nothing> {}

    @Task(id = "good.bean")
    static class BeanTask extends Handles<Bean> {}

    @Task(id = "good.value")
    static class ValueTask extends Handles<ValueShape> {}

    @Task(id = "good.creator")
    static class CreatorTask extends Handles<Created> {}

    @Task(id = "good.factory")
    static class FactoryTask extends Handles<Made> {}

    @Task(id = "good.kotlin")
    static class KotlinStyleTask extends Handles<KotlinStyle> {}

    @Task(id = "good.envelope")
    static class EnvelopeTask extends Handles<Envelope<Order>> {}

    @Task(id = "good.ignored")
    static class DerivedIgnoredTask extends Handles<Priced> {}

    @Task(id = "good.read-only")
    static class DerivedReadOnlyTask extends Handles<Labelled> {}

    @Task(id = "good.polymorphic")
    static class PolymorphicTask extends Handles<Figure> {}

    @Task(id = "good.sku")
    static class SkuTask extends Handles<Sku> {}

    @Task(id = "good.values")
    static class ValuesTask extends Handles<Values> {}

    @Task(id = "good.json-node")
    static class JsonNodeTask extends Handles<JsonNode> {}

    @Task(id = "good.map")
    static class MapTask extends Handles<Map<String, Object>> {}

    @Task(id = "good.string")
    static class StringTask extends Handles<String> {}

    @Task(id = "good.integer")
    static class IntegerTask extends Handles<Integer> {}

    @Task(id = "good.list")
    static class ListTask extends Handles<List<String>> {}

    @Task(id = "good.records")
    static class RecordListTask extends Handles<List<Order>> {}

    @Task(id = "good.enum")
    static class EnumTask extends Handles<Colour> {}

    @Task(id = "good.count")
    static class CountFunction implements TaskFunction<Order, Integer> {

        @Override
        public Integer run(Order payload, RunContext context) {
            return payload.quantity();
        }
    }

    @Task(id = "good.void")
    static class VoidFunction implements TaskFunction<Order, Void> {

        @Override
        public Void run(Order payload, RunContext context) {
            return null;
        }
    }
}

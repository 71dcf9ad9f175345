package io.runlane.internal.registry;

import io.runlane.TaskFunction;
import io.runlane.internal.registry.PayloadTypeException.Violation;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.introspect.AnnotatedMethod;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.PropertyWriter;
import tools.jackson.databind.ser.bean.BeanSerializerBase;
import tools.jackson.databind.ser.impl.UnknownSerializer;

/**
 * Checks at start-up that each task's payload type, and each {@link TaskFunction}'s result type, survives a round
 * trip through the application's {@link JsonMapper} (S-ID-11): Jackson can construct it, writes what it holds, and
 * reads back every property it writes. Without the check such a type is accepted and fails later, or worse, loses
 * data silently: a class with private fields and no getters is stored as {@code {}}, a getter without a matching
 * constructor parameter is stored and read back as {@code null}, an interface fails every run.
 *
 * <p>The check asks the mapper's own serializers and deserializers, so its modules, mix-ins, naming strategy,
 * visibility and annotations count exactly as they do when a run is stored and read. Types held in properties,
 * collections and maps are checked too; JDK types, polymorphic types (with {@code @JsonTypeInfo}) and types with a
 * custom serializer or deserializer are the mapper's business and taken as they are.
 */
public final class PayloadTypeCheck {

    private final JsonMapper mapper;

    public PayloadTypeCheck(JsonMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Checks every task of the registry.
     *
     * @throws PayloadTypeException for the first type that does not round-trip, naming the task
     */
    public void check(Collection<TaskDefinition> tasks) {
        for (TaskDefinition task : tasks) {
            check(task, "payload", task.payloadType());
            Type result = resultType(task.handlerClass());
            if (result != null) {
                check(task, "result", result);
            }
        }
    }

    private void check(TaskDefinition task, String role, Type declared) {
        JavaType type = mapper.constructType(declared);
        Violation violation = new Walk().check(type, null);
        if (violation != null) {
            throw new PayloadTypeException(task, role, type.toCanonical(), violation);
        }
    }

    /** A {@link TaskFunction}'s resolved result type {@code R}, or {@code null} for a handler or an open type. */
    private static @Nullable Type resultType(Class<?> handlerClass) {
        if (!TaskFunction.class.isAssignableFrom(handlerClass)) {
            return null;
        }
        ResolvableType result =
                ResolvableType.forClass(handlerClass).as(TaskFunction.class).getGeneric(1);
        Class<?> resolved = result.resolve();
        if (resolved == null || result.hasUnresolvableGenerics() || resolved == Void.class) {
            return null;
        }
        return ResolvedTypes.of(result);
    }

    /** One walk through a declared type and the types it holds; each type is checked once. */
    private final class Walk {

        private final Set<JavaType> seen = new HashSet<>();

        private final SerializationContext writing = mapper._serializationContext();

        private final DeserializationContext reading = mapper._deserializationContext();

        @Nullable
        Violation check(JavaType type, @Nullable String path) {
            if (type.isContainerType() || type.isReferenceType()) {
                JavaType content = type.getContentType();
                return content == null ? null : check(content, path);
            }
            Class<?> raw = type.getRawClass();
            if (raw == Object.class
                    || raw.isPrimitive()
                    || raw.isEnum()
                    || JsonNode.class.isAssignableFrom(raw)
                    || isPlatformType(raw)
                    || !seen.add(type)) {
                return null;
            }
            String name = type.toCanonical();
            ValueSerializer<Object> serializer;
            ValueDeserializer<Object> deserializer;
            try {
                if (reading.findTypeDeserializer(type) != null) {
                    return null;
                }
                serializer = writing.findValueSerializer(type);
                deserializer = reading.findRootValueDeserializer(type);
            } catch (JacksonException | IllegalArgumentException ex) {
                return new Violation(
                        name,
                        path,
                        null,
                        "the application's JsonMapper cannot map it: " + message(ex),
                        "Fix the Jackson annotations of " + raw.getSimpleName()
                                + " (or register a serializer and deserializer for it).",
                        ex);
            }
            if (deserializer instanceof AbstractDeserializer) {
                return abstractType(name, path, raw);
            }
            if (!(deserializer instanceof BeanDeserializerBase bean)) {
                return null;
            }
            if (!bean.getValueInstantiator().canInstantiate()) {
                return new Violation(
                        name,
                        path,
                        null,
                        "Jackson finds no way to construct it (no no-arg constructor, no @JsonCreator, no constructor"
                                + " whose parameters name its properties), so reading a stored value fails.",
                        "Add a no-arg constructor and setters to " + raw.getSimpleName()
                                + ", or annotate a constructor with @JsonCreator (its parameters named with"
                                + " @JsonProperty, @ConstructorProperties or -parameters), or declare it as a record.",
                        null);
            }
            List<PropertyWriter> written = new ArrayList<>();
            if (serializer instanceof BeanSerializerBase beanSerializer) {
                beanSerializer.properties().forEachRemaining(written::add);
            } else if (!(serializer instanceof UnknownSerializer)) {
                return null;
            }
            if (written.isEmpty()) {
                String field = stateField(raw);
                if (field != null) {
                    return new Violation(
                            name,
                            path,
                            field,
                            "is a field, but Jackson writes no property of " + raw.getSimpleName()
                                    + ", so it is stored as {} and its value is lost.",
                            "Give " + raw.getSimpleName() + " a public getter for '" + field
                                    + "' (or annotate the field with @JsonProperty), or declare it as a record.",
                            null);
                }
            }
            Set<String> ignored = ignoredOnRead(type, raw);
            for (PropertyWriter property : written) {
                String propertyName = property.getName();
                if (!bean.hasAnySetter() && !bean.hasProperty(propertyName) && !ignored.contains(propertyName)) {
                    return unreadProperty(name, path, raw, propertyName, property.getMember(), bean);
                }
            }
            for (PropertyWriter property : written) {
                Violation held = check(property.getType(), (path == null ? "" : path + ".") + property.getName());
                if (held != null) {
                    return held;
                }
            }
            return null;
        }

        private Violation abstractType(String name, @Nullable String path, Class<?> raw) {
            return new Violation(
                    name,
                    path,
                    null,
                    "is " + (raw.isInterface() ? "an interface" : "an abstract class")
                            + " without @JsonTypeInfo, so Jackson cannot construct one when it reads a stored value:"
                            + " every run would fail with payload_invalid.",
                    "Declare a concrete class or a record instead of " + raw.getSimpleName() + ", or annotate "
                            + raw.getSimpleName() + " with @JsonTypeInfo and @JsonSubTypes naming its implementations.",
                    null);
        }

        private Violation unreadProperty(
                String name,
                @Nullable String path,
                Class<?> raw,
                String property,
                @Nullable AnnotatedMember accessor,
                BeanDeserializerBase bean) {
            List<String> creator = new ArrayList<>();
            for (Iterator<SettableBeanProperty> it = bean.creatorProperties(); it.hasNext(); ) {
                creator.add(it.next().getName());
            }
            String writtenBy = accessor == null
                    ? ""
                    : " (by " + accessor.getName() + (accessor instanceof AnnotatedMethod ? "()" : "") + ")";
            return new Violation(
                    name,
                    path,
                    property,
                    "is written" + writtenBy + " but never read back: no constructor parameter, setter or field takes '"
                            + property + "'" + (creator.isEmpty() ? "" : " (the constructor takes " + creator + ")")
                            + ", so the handler would see it null.",
                    "Name a constructor parameter of " + raw.getSimpleName() + " '" + property
                            + "' (with @JsonCreator and @JsonProperty(\"" + property
                            + "\"), @ConstructorProperties or -parameters), or add a setter for it; if it is derived"
                            + " from other properties, annotate its getter with @JsonIgnore or"
                            + " @JsonProperty(access = READ_ONLY).",
                    null);
        }

        /** Names that the type declares ignorable when read: read-only properties and {@code allowGetters} ones. */
        private Set<String> ignoredOnRead(JavaType type, Class<?> raw) {
            Set<String> ignored = new HashSet<>();
            BeanDescription description = reading.introspectBeanDescription(type);
            ignored.addAll(description.getIgnoredPropertyNames());
            ignored.addAll(reading.getConfig()
                    .getDefaultPropertyIgnorals(raw, description.getClassInfo())
                    .findIgnoredForDeserialization());
            for (BeanPropertyDefinition property : description.findProperties()) {
                if (ignored.contains(property.getInternalName())) {
                    ignored.add(property.getName());
                }
            }
            return ignored;
        }
    }

    /** The first instance field a class declares (itself or a superclass), or {@code null} for a stateless one. */
    private static @Nullable String stateField(Class<?> raw) {
        for (Class<?> type = raw; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                int modifiers = field.getModifiers();
                if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()) {
                    return field.getName();
                }
            }
        }
        return null;
    }

    /** JDK types: the mapper's own serializers handle them, and the application cannot change them anyway. */
    private static boolean isPlatformType(Class<?> raw) {
        String name = raw.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.");
    }

    private static String message(Exception ex) {
        return ex instanceof JacksonException jackson && jackson.getOriginalMessage() != null
                ? jackson.getOriginalMessage()
                : String.valueOf(ex.getMessage());
    }
}

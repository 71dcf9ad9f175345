package io.runlane.internal.registry;

import io.runlane.PayloadValidationException;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Converts payloads between their task's type and stored JSON, validating them on the way in and out (S-ID-4).
 * Uses the application's {@link JsonMapper}, so its modules and naming rules apply to stored payloads.
 */
public final class PayloadCodec {

    /** How JSON writes U+0000; {@code jsonb} refuses it ("unsupported Unicode escape sequence"). */
    private static final String NUL_ESCAPE = "\\u0000";

    private static final String NUL_REASON = "contains a NUL character (\\u0000), which PostgreSQL jsonb cannot store";

    private final JsonMapper jsonMapper;

    private final PayloadValidator validator;

    public PayloadCodec(JsonMapper jsonMapper, PayloadValidator validator) {
        this.jsonMapper = jsonMapper;
        this.validator = validator;
    }

    /** The application's mapper, which results and steps use too (S-RS-1). */
    public JsonMapper jsonMapper() {
        return jsonMapper;
    }

    /**
     * Returns the payload as an instance of the task's payload type, converting it through JSON when the caller
     * passed another shape (a map, say), and checks its constraints.
     *
     * @throws PayloadValidationException listing every problem; nothing has been written
     */
    public Object typedAndValid(TaskDefinition task, @Nullable Object payload) {
        if (payload == null) {
            throw new PayloadValidationException(task.id(), List.of("payload: must not be null"));
        }
        Object typed = task.payloadClass().isInstance(payload) ? payload : convert(task, payload);
        List<String> violations = validator.violations(typed);
        if (!violations.isEmpty()) {
            throw new PayloadValidationException(task.id(), violations);
        }
        return typed;
    }

    /**
     * Serialises a typed payload to JSON text. Every trigger path (single, batch, rerun and retry) stores the payload
     * through this method, so it is also where text PostgreSQL's {@code jsonb} cannot store is refused (S-ID-9).
     */
    public String toJson(TaskDefinition task, Object payload) {
        String json;
        try {
            json = jsonMapper.writeValueAsString(payload);
        } catch (JacksonException ex) {
            throw new PayloadValidationException(
                    task.id(), List.of("payload: cannot be written as JSON: " + ex.getOriginalMessage()));
        }
        if (json.contains(NUL_ESCAPE)) {
            String path = nulPath(jsonMapper.readTree(json), "payload");
            if (path != null) {
                throw new PayloadValidationException(task.id(), List.of(path + ": " + NUL_REASON));
            }
        }
        return json;
    }

    /** Reads a stored payload back into the task's type and checks its constraints again. */
    public Object fromJson(TaskDefinition task, String json) {
        Object typed;
        try {
            typed = jsonMapper.readValue(json, javaType(task));
        } catch (JacksonException ex) {
            throw new PayloadValidationException(
                    task.id(),
                    List.of("payload: cannot be read as " + task.payloadType().getTypeName() + ": "
                            + ex.getOriginalMessage()));
        }
        return typedAndValid(task, typed);
    }

    private Object convert(TaskDefinition task, Object payload) {
        try {
            return jsonMapper.convertValue(payload, javaType(task));
        } catch (JacksonException | IllegalArgumentException ex) {
            throw new PayloadValidationException(
                    task.id(),
                    List.of("payload: expected " + task.payloadType().getTypeName() + " but got "
                            + payload.getClass().getName() + " that does not convert to it"));
        }
    }

    /**
     * The path of the first string or field name holding U+0000, or {@code null} when there is none: the text
     * {@code \\u0000} in the JSON may also be an escaped backslash followed by {@code u0000}, which is harmless.
     */
    private static @Nullable String nulPath(JsonNode node, String path) {
        if (node.isString()) {
            return node.stringValue().indexOf('\0') >= 0 ? path : null;
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String found = nulPath(node.get(i), path + "[" + i + "]");
                if (found != null) {
                    return found;
                }
            }
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String fieldPath = path + "." + field.getKey().replace('\0', '\uFFFD');
            if (field.getKey().indexOf('\0') >= 0) {
                return fieldPath;
            }
            String found = nulPath(field.getValue(), fieldPath);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private JavaType javaType(TaskDefinition task) {
        return jsonMapper.constructType(task.payloadType());
    }
}

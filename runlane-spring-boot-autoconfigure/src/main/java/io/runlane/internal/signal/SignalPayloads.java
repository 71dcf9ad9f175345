package io.runlane.internal.signal;

import io.runlane.PayloadValidationException;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes signal payloads as JSON with the application's mapper, refusing what {@code jsonb} cannot store (S-SG-1,
 * S-ID-4): a payload that does not serialise, or a string with a NUL character. Refused payloads throw {@link
 * PayloadValidationException} before anything is written; its task id names the signal ({@code signal:<name>}).
 */
public final class SignalPayloads {

    private final JsonMapper mapper;

    public SignalPayloads(JsonMapper mapper) {
        this.mapper = mapper;
    }

    public String toJson(String name, @Nullable Object payload) {
        String owner = "signal:" + name;
        if (payload == null) {
            throw new PayloadValidationException(owner, List.of("payload: must not be null"));
        }
        String json;
        try {
            json = mapper.writeValueAsString(payload);
        } catch (JacksonException ex) {
            throw new PayloadValidationException(
                    owner, List.of("payload: cannot be written as JSON: " + ex.getOriginalMessage()));
        }
        if (json.contains("\\u0000")) {
            String path = nulPath(mapper.readTree(json), "payload");
            if (path != null) {
                throw new PayloadValidationException(
                        owner,
                        List.of(path + ": contains a NUL character (\\u0000), which PostgreSQL jsonb cannot store"));
            }
        }
        return json;
    }

    /** The path of the first string (or field name) holding a NUL character, or {@code null}. */
    private static @Nullable String nulPath(JsonNode node, String path) {
        if (node.isString()) {
            return node.asString().indexOf('\0') >= 0 ? path : null;
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String found = nulPath(node.get(i), path + "[" + i + "]");
                if (found != null) {
                    return found;
                }
            }
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if (field.getKey().indexOf('\0') >= 0) {
                    return path;
                }
                String found = nulPath(field.getValue(), path + "." + field.getKey());
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }
}

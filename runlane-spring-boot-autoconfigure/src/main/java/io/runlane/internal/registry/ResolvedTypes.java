package io.runlane.internal.registry;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;

/**
 * Turns a {@link ResolvableType} into a {@link Type} with every type variable replaced by what the handler class
 * binds it to. {@link ResolvableType#getType()} returns the variable itself for a handler that extends a generic base
 * class ({@code class Confirm extends Base<Order>}, with {@code Base<P> implements TaskHandler<P>}), which a JSON
 * mapper would read as {@code Object}.
 */
final class ResolvedTypes {

    private ResolvedTypes() {}

    static Type of(ResolvableType type) {
        Type declared = type.getType();
        Class<?> raw = type.resolve();
        if (raw == null || !(declared instanceof TypeVariable<?> || declared instanceof ParameterizedType)) {
            return declared;
        }
        if (!type.hasGenerics()) {
            return raw;
        }
        Type[] arguments =
                Arrays.stream(type.getGenerics()).map(ResolvedTypes::of).toArray(Type[]::new);
        return new Parameterized(raw, arguments);
    }

    /** A parameterized type built from resolved parts; equal to the JDK's own for the same parts. */
    private record Parameterized(Class<?> raw, Type[] arguments) implements ParameterizedType {

        @Override
        public Type[] getActualTypeArguments() {
            return arguments.clone();
        }

        @Override
        public Type getRawType() {
            return raw;
        }

        @Override
        public @Nullable Type getOwnerType() {
            return raw.getDeclaringClass();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ParameterizedType that
                    && raw.equals(that.getRawType())
                    && Arrays.equals(arguments, that.getActualTypeArguments())
                    && Objects.equals(getOwnerType(), that.getOwnerType());
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(arguments) ^ raw.hashCode() ^ Objects.hashCode(getOwnerType());
        }

        @Override
        public String toString() {
            return raw.getName()
                    + Arrays.stream(arguments).map(Type::getTypeName).collect(Collectors.joining(", ", "<", ">"));
        }
    }
}

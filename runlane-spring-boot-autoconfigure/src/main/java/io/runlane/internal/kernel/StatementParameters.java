package io.runlane.internal.kernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.DisposableSqlTypeValue;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.support.SqlValue;

/**
 * The named parameters of a statement, or of statements that share them, in a fixed order, each with the JDBC type
 * its values are bound with ({@link java.sql.Types}, or {@link SqlTypeValue#TYPE_UNKNOWN} to let the value's class
 * decide, as for a named parameter given without a type). One call's values go in an array in that order, set by
 * name ({@link Values}), which a {@link PositionalStatement} binds: no map entry, typed wrapper or boxed type per
 * value, as a {@code MapSqlParameterSource} has.
 */
public final class StatementParameters {

    private final String[] names;

    private final int[] types;

    private final Map<String, Integer> indexes;

    private StatementParameters(List<String> names, List<Integer> types) {
        this.names = names.toArray(String[]::new);
        this.types = types.stream().mapToInt(Integer::intValue).toArray();
        this.indexes = new HashMap<>();
        for (int i = 0; i < this.names.length; i++) {
            if (indexes.put(this.names[i], i) != null) {
                throw new IllegalArgumentException("Parameter '" + this.names[i] + "' is declared twice");
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Empty values for one call, to be set by name. */
    public Values values() {
        return new Values(this);
    }

    /** The position of {@code name} in the declared order, or -1 if it is not declared. */
    int indexOf(String name) {
        Integer index = indexes.get(name);
        return index == null ? -1 : index;
    }

    int type(int index) {
        return types[index];
    }

    String name(int index) {
        return names[index];
    }

    int size() {
        return names.length;
    }

    /** Declares parameters one by one, in order. */
    public static final class Builder {

        private final List<String> names = new ArrayList<>();

        private final List<Integer> types = new ArrayList<>();

        private Builder() {}

        /** A parameter bound with {@code sqlType}. */
        public Builder add(String name, int sqlType) {
            names.add(name);
            types.add(sqlType);
            return this;
        }

        /** Every parameter of {@code parameters}, in their order. */
        public Builder addAll(StatementParameters parameters) {
            for (int i = 0; i < parameters.size(); i++) {
                add(parameters.name(i), parameters.type(i));
            }
            return this;
        }

        public StatementParameters build() {
            return new StatementParameters(names, types);
        }
    }

    /**
     * The values of one call, by name. A list of single values stands for as many positions as it has elements (an
     * {@code IN (:ids)} list); the statement's text is made for its length ({@link PositionalStatement#forValues}).
     */
    public static final class Values {

        private final StatementParameters parameters;

        private final @Nullable Object[] values;

        private Values(StatementParameters parameters) {
            this.parameters = parameters;
            this.values = new Object[parameters.size()];
        }

        /**
         * Sets the value of the declared parameter {@code name}. Nothing is freed after the statement, so a value
         * that must be freed ({@code SqlArrayValue} and its kind) is refused: an array goes as {@link
         * ArrayParameters}.
         */
        public Values set(String name, @Nullable Object value) {
            int index = parameters.indexOf(name);
            if (index < 0) {
                throw new IllegalArgumentException("Parameter '" + name + "' is not declared");
            }
            if (value instanceof DisposableSqlTypeValue || value instanceof SqlValue) {
                throw new IllegalArgumentException("Parameter '" + name + "' must not need freeing");
            }
            values[index] = value;
            return this;
        }

        /** The values by name, each with its type, for a statement that binds them by name. */
        public MapSqlParameterSource asParameterSource() {
            MapSqlParameterSource source = new MapSqlParameterSource();
            for (int i = 0; i < values.length; i++) {
                source.addValue(parameters.name(i), values[i], parameters.type(i));
            }
            return source;
        }

        StatementParameters parameters() {
            return parameters;
        }

        @Nullable
        Object get(int index) {
            return values[index];
        }
    }
}

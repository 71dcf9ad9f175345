package io.runlane.internal.kernel;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.SqlParameter;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.StatementCreatorUtils;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;

/**
 * A statement written with named parameters, turned once into the positional text the driver prepares, with the
 * parameter and JDBC type of each position ({@link StatementParameters}). The engine's busiest statements (the
 * admission of a run, a claim, a batch of completions) bind their values through it: Spring's named-parameter
 * support builds the positional text anew on every call (a string as long as the statement, 2 KB for an admission)
 * and wraps every value in a map entry and a typed value, which made up a third of what a run allocated.
 *
 * <p>The positional text is made by Spring's own {@link NamedParameterUtils}, as {@code NamedParameterJdbcTemplate}
 * makes it, and each value is bound by {@link StatementCreatorUtils} with its declared type, as there: the driver
 * and PostgreSQL prepare and cache the very same statement, and no parameter goes without a type (S-OP-13).
 */
public final class PositionalStatement {

    private final String sql;

    private final StatementParameters parameters;

    /** Per position, the index of its parameter. */
    private final int[] parameterOf;

    /** Per position, the element of its parameter's list value, or -1 for a plain value. */
    private final int[] elementOf;

    /** Per parameter, the length its list value must have, or -1 for a plain value. */
    private final int[] listLengths;

    private PositionalStatement(
            String sql, StatementParameters parameters, int[] parameterOf, int[] elementOf, int[] listLengths) {
        this.sql = sql;
        this.parameters = parameters;
        this.parameterOf = parameterOf;
        this.elementOf = elementOf;
        this.listLengths = listLengths;
    }

    /** {@code namedSql}, whose parameters are all declared in {@code parameters} and none is a list. */
    public static PositionalStatement of(String namedSql, StatementParameters parameters) {
        return forValues(namedSql, parameters.values());
    }

    /**
     * {@code namedSql} for values of the shape of {@code values}: each of its list values stands for as many
     * positions as it has elements, and the statement binds only lists of those lengths.
     */
    public static PositionalStatement forValues(String namedSql, StatementParameters.Values values) {
        StatementParameters parameters = values.parameters();
        MapSqlParameterSource shape = new MapSqlParameterSource();
        int[] listLengths = new int[parameters.size()];
        for (int i = 0; i < parameters.size(); i++) {
            List<?> list = values.get(i) instanceof List<?> value ? value : null;
            if (list != null && list.stream().anyMatch(element -> element instanceof Object[])) {
                throw new IllegalArgumentException(
                        "Parameter '" + parameters.name(i) + "' is a list of tuples, which takes no single positions");
            }
            shape.addValue(parameters.name(i), list);
            listLengths[i] = list == null ? -1 : list.size();
        }
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(namedSql);
        List<Integer> parameterOf = new ArrayList<>();
        List<Integer> elementOf = new ArrayList<>();
        for (SqlParameter occurrence : NamedParameterUtils.buildSqlParameterList(parsed, shape)) {
            String name = occurrence.getName();
            int index = name == null ? -1 : parameters.indexOf(name);
            if (index < 0) {
                throw new IllegalArgumentException("Parameter '" + name + "' of the statement is not declared");
            }
            if (values.get(index) instanceof List<?> list) {
                for (int element = 0; element < list.size(); element++) {
                    parameterOf.add(index);
                    elementOf.add(element);
                }
            } else {
                parameterOf.add(index);
                elementOf.add(-1);
            }
        }
        return new PositionalStatement(
                NamedParameterUtils.substituteNamedParameters(parsed, shape),
                parameters,
                parameterOf.stream().mapToInt(Integer::intValue).toArray(),
                elementOf.stream().mapToInt(Integer::intValue).toArray(),
                listLengths);
    }

    /** The positional text, to be prepared by the driver. */
    public String sql() {
        return sql;
    }

    /** Binds {@code values} to a prepared statement of {@link #sql()}, for {@code JdbcTemplate}. */
    public PreparedStatementSetter setter(StatementParameters.Values values) {
        requireOwn(values);
        return new Binding(values);
    }

    /**
     * The values in positional order, each with its declared type, for {@code JdbcClient}'s positional parameters
     * ({@code .params(...)}).
     */
    public Object[] arguments(StatementParameters.Values values) {
        requireOwn(values);
        Object[] arguments = new Object[parameterOf.length];
        for (int position = 0; position < parameterOf.length; position++) {
            arguments[position] =
                    new SqlParameterValue(parameters.type(parameterOf[position]), value(values, position));
        }
        return arguments;
    }

    private @Nullable Object value(StatementParameters.Values values, int position) {
        Object value = values.get(parameterOf[position]);
        int element = elementOf[position];
        return element < 0 ? value : ((List<?>) value).get(element);
    }

    private void requireOwn(StatementParameters.Values values) {
        if (values.parameters() != parameters) {
            throw new IllegalArgumentException("The values are of other parameters than the statement's");
        }
        for (int i = 0; i < listLengths.length; i++) {
            Object value = values.get(i);
            boolean fits = listLengths[i] < 0
                    ? !(value instanceof List<?>)
                    : value instanceof List<?> list && list.size() == listLengths[i];
            if (!fits) {
                throw new IllegalArgumentException("Parameter '" + parameters.name(i) + "' must be "
                        + (listLengths[i] < 0 ? "a single value" : "a list of " + listLengths[i] + " values")
                        + " for this statement");
            }
        }
    }

    /** The values of one call, bound position by position. */
    private final class Binding implements PreparedStatementSetter {

        private final StatementParameters.Values values;

        Binding(StatementParameters.Values values) {
            this.values = values;
        }

        @Override
        public void setValues(PreparedStatement statement) throws SQLException {
            for (int position = 0; position < parameterOf.length; position++) {
                StatementCreatorUtils.setParameterValue(
                        statement, position + 1, parameters.type(parameterOf[position]), value(values, position));
            }
        }
    }
}

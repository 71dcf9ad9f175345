package io.runlane.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.function.Predicate;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * Hands a test its connection pools ({@link Pool}) and fresh schema names ({@link FreshSchema}) on the one server of
 * {@link TestDatabase}, and closes each pool when the scope that asked for it ends:
 *
 * <ol>
 *   <li>static fields are filled before {@code @BeforeAll} methods run; their pools close after {@code @AfterAll};
 *   <li>instance fields are filled when the test instance is made; their pools close after the test's
 *       {@code @AfterEach} methods (after the class, for a {@code PER_CLASS} instance);
 *   <li>parameters of lifecycle and test methods are resolved for that method's scope: a pool asked for by a
 *       {@code @BeforeAll} method lives for the class, one asked for by a {@code @BeforeEach} or test method for the
 *       test.
 * </ol>
 *
 * <p>Schema names are reserved through {@link TestDatabase#freshSchema(String)} (a schema a previous run left behind is
 * dropped through one small pool the test JVM shares), so a test's own pools hold only the connections it asked for.
 */
public final class RunlaneDatabaseExtension implements BeforeAllCallback, TestInstancePostProcessor, ParameterResolver {

    private static final Namespace NAMESPACE = Namespace.create(RunlaneDatabaseExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) throws IllegalAccessException {
        inject(context.getRequiredTestClass(), null, field -> Modifier.isStatic(field.getModifiers()), context);
    }

    @Override
    public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
        return ExtensionContextScope.TEST_METHOD;
    }

    @Override
    public void postProcessTestInstance(Object testInstance, ExtensionContext context) throws IllegalAccessException {
        inject(testInstance.getClass(), testInstance, field -> !Modifier.isStatic(field.getModifiers()), context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return (parameter.isAnnotated(Pool.class) && type.isAssignableFrom(HikariDataSource.class))
                || (parameter.isAnnotated(FreshSchema.class) && type == String.class);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter
                .findAnnotation(Pool.class)
                .<Object>map(pool -> pool(pool, context))
                .orElseGet(
                        () -> schema(parameter.findAnnotation(FreshSchema.class).orElseThrow()));
    }

    private static void inject(Class<?> testClass, Object instance, Predicate<Field> filter, ExtensionContext context)
            throws IllegalAccessException {
        for (Field field :
                AnnotationSupport.findAnnotatedFields(testClass, Pool.class, filter, HierarchyTraversalMode.TOP_DOWN)) {
            check(field, HikariDataSource.class);
            field.setAccessible(true);
            field.set(instance, pool(field.getAnnotation(Pool.class), context));
        }
        for (Field field : AnnotationSupport.findAnnotatedFields(
                testClass, FreshSchema.class, filter, HierarchyTraversalMode.TOP_DOWN)) {
            check(field, String.class);
            field.setAccessible(true);
            field.set(instance, schema(field.getAnnotation(FreshSchema.class)));
        }
    }

    private static void check(Field field, Class<?> injected) {
        if (Modifier.isFinal(field.getModifiers()) || !field.getType().isAssignableFrom(injected)) {
            throw new ExtensionConfigurationException(
                    field + " must be a non-final field that can hold a " + injected.getSimpleName());
        }
    }

    private static HikariDataSource pool(Pool pool, ExtensionContext context) {
        HikariDataSource dataSource = TestDatabase.newDataSource(pool.size());
        // the store closes what it holds when its context ends
        context.getStore(NAMESPACE).put(dataSource.getPoolName(), dataSource);
        return dataSource;
    }

    private static String schema(FreshSchema schema) {
        return TestDatabase.freshSchema(schema.value());
    }
}

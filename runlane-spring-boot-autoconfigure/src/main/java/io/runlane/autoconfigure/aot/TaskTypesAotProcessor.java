package io.runlane.autoconfigure.aot;

import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * Registers binding hints for the payload type of every {@link Task @Task} bean and the result type of every
 * {@link TaskFunction}, and the types they hold, so that Jackson can write and read them in a native image as it does
 * on the JVM (S-ID-4, S-RS-1). The handler class itself is registered too: Runlane reads its {@code @Task} and
 * {@code @Schedule} annotations and its generic interfaces when the application starts.
 */
class TaskTypesAotProcessor implements BeanFactoryInitializationAotProcessor {

    @Override
    public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
            ConfigurableListableBeanFactory beanFactory) {
        Set<Class<?>> handlers = new LinkedHashSet<>();
        Set<Class<?>> bound = new LinkedHashSet<>();
        for (String name : beanFactory.getBeanNamesForAnnotation(Task.class)) {
            Class<?> type = beanFactory.getType(name, false);
            if (type == null) {
                continue;
            }
            Class<?> handler = ClassUtils.getUserClass(type);
            handlers.add(handler);
            if (TaskFunction.class.isAssignableFrom(handler)) {
                ResolvableType function = ResolvableType.forClass(handler).as(TaskFunction.class);
                collect(function.getGeneric(0), bound);
                collect(function.getGeneric(1), bound);
            } else if (TaskHandler.class.isAssignableFrom(handler)) {
                collect(ResolvableType.forClass(handler).as(TaskHandler.class).getGeneric(0), bound);
            }
        }
        if (handlers.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> register(generationContext.getRuntimeHints(), handlers, bound);
    }

    private static void register(RuntimeHints hints, Set<Class<?>> handlers, Set<Class<?>> bound) {
        for (Class<?> handler : handlers) {
            hints.reflection().registerType(handler, MemberCategory.INTROSPECT_PUBLIC_METHODS);
        }
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(hints.reflection(), bound.toArray(Class<?>[]::new));
    }

    /** The resolved class of the type and of each of its generic arguments, such as {@code Envelope<Order>}. */
    private static void collect(ResolvableType type, Set<Class<?>> classes) {
        Class<?> resolved = type.resolve();
        if (resolved == null || resolved == Object.class || resolved == Void.class) {
            return;
        }
        classes.add(resolved);
        for (ResolvableType generic : type.getGenerics()) {
            collect(generic, classes);
        }
    }
}

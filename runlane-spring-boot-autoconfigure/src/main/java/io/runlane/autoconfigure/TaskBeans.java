package io.runlane.autoconfigure;

import io.runlane.Task;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Builds the task registry from the types of the {@link Task @Task} beans, without creating them. The handlers are
 * looked up by bean name when a run first needs them, so a handler may depend on the
 * {@link io.runlane.RunlaneTemplate}, directly or through a service, even though the template's engine needs the
 * registry (S-ID-2 still fails start-up for a bad declaration: every attribute is read from the class).
 */
final class TaskBeans {

    private TaskBeans() {}

    static TaskRegistry registry(ListableBeanFactory beanFactory, TaskDefinitionReader reader) {
        List<TaskDefinition> definitions = new ArrayList<>();
        for (String name : beanFactory.getBeanNamesForAnnotation(Task.class)) {
            Class<?> type = beanFactory.getType(name);
            if (type == null) {
                throw new IllegalStateException("Cannot determine the type of @Task bean '" + name + "'");
            }
            definitions.add(reader.read(ClassUtils.getUserClass(type), () -> beanFactory.getBean(name)));
        }
        return new TaskRegistry(definitions);
    }
}

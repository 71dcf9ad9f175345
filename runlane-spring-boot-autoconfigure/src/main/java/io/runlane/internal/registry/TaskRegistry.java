package io.runlane.internal.registry;

import io.runlane.TaskNotFoundException;
import io.runlane.internal.kernel.Guarantees;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The tasks this application declares, by id and by handler class. Immutable once built. */
public final class TaskRegistry {

    private final Map<String, TaskDefinition> byId;

    private final Map<Class<?>, TaskDefinition> byClass;

    public TaskRegistry(Collection<TaskDefinition> definitions) {
        Map<String, TaskDefinition> ids = new LinkedHashMap<>();
        Map<Class<?>, TaskDefinition> classes = new LinkedHashMap<>();
        for (TaskDefinition definition : definitions) {
            TaskDefinition previous = ids.putIfAbsent(definition.id(), definition);
            if (previous != null) {
                throw new TaskDeclarationException(
                        definition.handlerClass(),
                        "declares task id '" + definition.id() + "', which "
                                + previous.handlerClass().getName() + " already declares (S-ID-2, "
                                + Guarantees.link("S-ID-2") + ")");
            }
            classes.put(definition.handlerClass(), definition);
        }
        this.byId = Map.copyOf(ids);
        this.byClass = Map.copyOf(classes);
    }

    /** The task with this id; throws {@link TaskNotFoundException} when none is registered. */
    public TaskDefinition require(String taskId) {
        TaskDefinition definition = byId.get(taskId);
        if (definition == null) {
            throw new TaskNotFoundException(taskId);
        }
        return definition;
    }

    /** The task implemented by this class (or a subclass of it, such as a proxy). */
    public TaskDefinition require(Class<?> handlerClass) {
        TaskDefinition definition = byClass.get(handlerClass);
        if (definition != null) {
            return definition;
        }
        return byClass.values().stream()
                .filter(candidate -> handlerClass.isAssignableFrom(candidate.handlerClass()))
                .findFirst()
                .orElseThrow(() -> new TaskNotFoundException(handlerClass.getName()));
    }

    public Optional<TaskDefinition> find(String taskId) {
        return Optional.ofNullable(byId.get(taskId));
    }

    /** Every task, in id order. */
    public List<TaskDefinition> all() {
        return byId.values().stream()
                .sorted(Comparator.comparing(TaskDefinition::id))
                .toList();
    }
}

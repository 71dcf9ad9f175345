package io.runlane;

/** No task with this id or class is registered in this application (S-ID-5). */
public class TaskNotFoundException extends RunlaneException {

    public TaskNotFoundException(String task) {
        super("task_not_found", "No task '" + task + "' is registered");
    }
}

package io.runlane.internal.schedule;

import java.util.List;

/**
 * The schedules this application declares, annotation and configuration merged, once they have been validated and
 * written at start-up (S-SC-1, S-SC-8). The firer starts after them.
 *
 * @param declarations the merged declarations, disabled ones included
 */
public record DeclaredSchedules(List<ScheduleDeclaration> declarations) {

    public DeclaredSchedules {
        declarations = List.copyOf(declarations);
    }
}

package io.runlane;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a schedule of the {@link Task @Task} class it annotates (S-SC-1): each occurrence of the cron expression
 * or the interval creates one run of the task, once across all instances (S-SC-2). Configuration under {@code
 * runlane.schedules.<id>.*} overrides the declaration field by field. An invalid declaration fails start-up with a
 * message naming the class.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(Schedule.List.class)
public @interface Schedule {

    /** The schedule's id, unique in the environment (S-ID-1, at most 200 characters). */
    String id();

    /**
     * A cron expression of Spring's {@code CronExpression}: 6 fields (with seconds), 5 fields (second 0), or a macro
     * such as {@code @hourly}. Exactly one of {@code cron} and {@link #every()} is set.
     */
    String cron() default "";

    /** A fixed interval such as {@code 30s}, {@code 15m} or {@code 1h}, from one occurrence to the next. */
    String every() default "";

    /** The time zone in which the cron expression is read (S-SC-4). */
    String zone() default "UTC";

    /** The payload of each run, as JSON read into the task's payload type and validated. */
    String payload() default "{}";

    /** What an occurrence does while the previous run is active (S-SC-3). */
    OverlapPolicy overlap() default OverlapPolicy.SKIP;

    /** Holds repeated {@link Schedule @Schedule} declarations. */
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    @interface List {
        Schedule[] value();
    }
}

package io.runlane.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class that gets its connection pools and schemas from {@link RunlaneDatabaseExtension}: {@link Pool} and
 * {@link FreshSchema} fields and parameters are filled in, and the pools are closed when the test (or, for static
 * fields and {@code @BeforeAll} parameters, the class) is done.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RunlaneDatabaseExtension.class)
public @interface RunlaneDatabaseTest {}

package io.runlane.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.regex.Pattern;

/**
 * The package split of the house style: the public API stands alone, the engine knows nothing of Spring Boot, and
 * only the auto-configuration wires the two to Boot. Inside the engine, each concern is a package and the packages
 * form no cycle: the composition root ({@code internal.engine}) depends on the concerns, the concerns on each other
 * in one direction only, and all of them on the shared kernel ({@code internal.kernel}), which depends on none of
 * them. Only main classes are analysed.
 */
@AnalyzeClasses(
        packages = "io.runlane",
        importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTests.DoNotIncludeTestClassesFolders.class})
class ArchitectureTests {

    @ArchTest
    static final ArchRule onlyTheAutoConfigurationDependsOnSpringBoot = noClasses()
            .that()
            .resideOutsideOfPackage("io.runlane.autoconfigure..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.springframework.boot..")
            .because("the engine must be usable without Spring Boot (tests and benchmarks assemble it by hand)");

    @ArchTest
    static final ArchRule publicApiDoesNotDependOnTheEngineOrTheAutoConfiguration = noClasses()
            .that()
            .resideInAPackage("io.runlane")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.runlane.internal..", "io.runlane.autoconfigure..")
            .because("applications compile against io.runlane only; everything else may change in any release");

    @ArchTest
    static final ArchRule engineDoesNotDependOnTheAutoConfiguration = noClasses()
            .that()
            .resideInAPackage("io.runlane.internal..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.runlane.autoconfigure..")
            .because("the auto-configuration wires the engine, never the other way round");

    @ArchTest
    static final ArchRule enginePackagesFormNoCycle = slices().matching("io.runlane.internal.(*)..")
            .should()
            .beFreeOfCycles()
            .because("each concern of the engine must be readable and replaceable on its own (issue 27)");

    @ArchTest
    static final ArchRule kernelDependsOnNoConcern = noClasses()
            .that()
            .resideInAPackage("io.runlane.internal.kernel..")
            .should()
            .dependOnClassesThat(resideInAPackage("io.runlane.internal..")
                    .and(resideInAPackage("io.runlane.internal.kernel..").negate()))
            .because("the kernel holds what every concern shares; a concern that must tell another something does so"
                    + " through a kernel interface");

    @ArchTest
    static final ArchRule onlyTheAutoConfigurationUsesTheCompositionRoot = noClasses()
            .that()
            .resideInAPackage("io.runlane.internal..")
            .and()
            .resideOutsideOfPackage("io.runlane.internal.engine..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.runlane.internal.engine..")
            .because("the engine package assembles the concerns; no concern may reach back into it");

    /**
     * {@link ImportOption.DoNotIncludeTests} recognises Maven's {@code target/test-classes} only; parallel builds use
     * other output folders ({@code -Drunlane.build.folder}), whose test classes this option leaves out as well.
     */
    static final class DoNotIncludeTestClassesFolders implements ImportOption {

        private static final Pattern TEST_CLASSES = Pattern.compile(".*/test-classes/.*");

        @Override
        public boolean includes(Location location) {
            return !location.matches(TEST_CLASSES);
        }
    }
}

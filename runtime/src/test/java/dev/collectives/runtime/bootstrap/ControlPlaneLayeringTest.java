package dev.collectives.runtime.bootstrap;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;

/**
 * The control plane (the rendezvous, its server and members, the job's settings) is a part of its own: it knows
 * nothing of the backends, of what backends share, or of the communicator API it serves. Of the runtime's user API
 * it names only the exception every failure is and its result code.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class ControlPlaneLayeringTest {
    private static final String CONTROL_PLANE = "dev.collectives.runtime.bootstrap..";

    @ArchTest
    static final ArchRule knowsNoBackend = noClasses()
            .that()
            .resideInAPackage(CONTROL_PLANE)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "dev.collectives.backend..", "dev.collectives.runtime.spi..", "dev.collectives.runtime.internal..");

    @ArchTest
    static final ArchRule knowsNoCommunicator = noClasses()
            .that()
            .resideInAPackage(CONTROL_PLANE)
            .should()
            .dependOnClassesThat(resideInAPackage("dev.collectives.runtime")
                    .and(not(type(CollectivesException.class)))
                    .and(not(type(Result.class)))
                    .as("a type of the runtime's communicator API (any but CollectivesException and Result)"));
}

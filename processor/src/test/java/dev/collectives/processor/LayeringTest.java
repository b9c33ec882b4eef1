package dev.collectives.processor;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layering of the project's main code: the processor checks declarations with the annotations and the rules
 * (collectives-api) only, and names the runtime's types in the code it writes without loading them; backends
 * implement the API and SPI; the API and the annotations never reach into a backend.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {
    private static final String JDK = "java..";
    private static final String ANNOTATIONS = "dev.collectives.annotation..";
    private static final String RULES = "dev.collectives.rules..";
    private static final String PROCESSOR = "dev.collectives.processor..";
    private static final String RUNTIME = "dev.collectives.runtime..";
    private static final String BACKENDS = "dev.collectives.backend..";

    @ArchTest
    static final ArchRule modelAndValidationUseOnlyTheApi = classes()
            .that()
            .resideInAnyPackage("..processor.model..", "..processor.validation..")
            .should()
            .onlyDependOnClassesThat(DescribedPredicate.describe(
                    "in the JDK (javac's tree API included), the annotations, the rules or the processor (not its"
                            + " writer)",
                    c -> c.getPackageName().startsWith("java")
                            || c.getPackageName().startsWith("com.sun.source")
                            || c.getPackageName().startsWith("dev.collectives.annotation")
                            || c.getPackageName().startsWith("dev.collectives.rules")
                            || c.getPackageName().startsWith("dev.collectives.processor")
                                    && !c.getPackageName().startsWith("dev.collectives.processor.writer")));

    /**
     * The api the processor shares with the runtime (the rules, their messages, the pairing of sends and receives)
     * uses only the JDK, so that the processor stays off the runtime and its natives.
     */
    @ArchTest
    static final ArchRule theApiUsesOnlyTheJdk = classes()
            .that()
            .resideInAnyPackage(ANNOTATIONS, RULES)
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(JDK, ANNOTATIONS, RULES);

    @ArchTest
    static final ArchRule theWriterNamesTheRuntimeWithoutLoadingIt = classes()
            .that()
            .resideInAPackage("..processor.writer..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(JDK, "javax..", "com.palantir.javapoet..", ANNOTATIONS, RULES, PROCESSOR);

    @ArchTest
    static final ArchRule theProcessorNeverTouchesTheRuntime = noClasses()
            .that()
            .resideInAPackage(PROCESSOR)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(RUNTIME, BACKENDS);

    @ArchTest
    static final ArchRule backendsUseOnlyTheRuntimeApiAndSpi = classes()
            .that()
            .resideInAPackage(BACKENDS)
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(
                    JDK,
                    "javax..",
                    "org.bytedeco..",
                    "com.google.auto.service..",
                    ANNOTATIONS,
                    RULES,
                    RUNTIME,
                    BACKENDS);

    @ArchTest
    static final ArchRule backendsDoNotReachIntoEachOther =
            slices().matching("dev.collectives.backend.(*)..").should().notDependOnEachOther();

    @ArchTest
    static final ArchRule theApiNeverReachesIntoABackend = noClasses()
            .that()
            .resideInAnyPackage(RUNTIME, ANNOTATIONS, RULES)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(BACKENDS, PROCESSOR);
}

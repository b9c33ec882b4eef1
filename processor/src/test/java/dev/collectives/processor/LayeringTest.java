package dev.collectives.processor;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import dev.collectives.rules.PeerPairing;
import dev.collectives.rules.Rule;

/**
 * The layering of the project's main code: the processor checks declarations with the annotations, the rule
 * catalogue and the rules it shares with bind (the pairing of sends and receives) only, and writes code against the
 * runtime API; backends implement the API and SPI; the API and the
 * annotations never reach into a backend.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {
    private static final String JDK = "java..";
    private static final String ANNOTATIONS = "dev.collectives.annotation..";
    private static final String PROCESSOR = "dev.collectives.processor..";
    private static final String BACKENDS = "dev.collectives.backend..";
    private static final String RULES = "dev.collectives.rules..";

    @ArchTest
    static final ArchRule modelAndValidationUseOnlyTheAnnotationsAndTheRuleCatalogue = classes()
            .that().resideInAnyPackage("..processor.model..", "..processor.validation..")
            .should().onlyDependOnClassesThat(DescribedPredicate.describe(
                    "in the JDK (javac's tree API included), the annotations, the processor (not its writer), the"
                            + " rule catalogue or the pairing of sends and receives",
                    c -> c.getPackageName().startsWith("java") || c.getPackageName().startsWith("com.sun.source")
                            || c.getPackageName().startsWith("dev.collectives.annotation")
                            || c.getPackageName().startsWith("dev.collectives.processor")
                            && !c.getPackageName().startsWith("dev.collectives.processor.writer")
                            || c.isEquivalentTo(Rule.class) || isPeerPairing(c)));

    /**
     * The rules the processor shares with the generated code's checks at bind: the catalogue, and the pairing of
     * sends and receives (the processor checks it where {@code ranks} is declared, bind where it is not; one
     * algorithm for both). They may use only the JDK and the annotations, so that the processor stays off the
     * runtime.
     */
    @ArchTest
    static final ArchRule sharedRulesUseOnlyTheJdkAndTheAnnotations = classes()
            .that(DescribedPredicate.describe("the rule catalogue or the pairing of sends and receives",
                    c -> c.isEquivalentTo(Rule.class) || isPeerPairing(c)))
            .should().onlyDependOnClassesThat(DescribedPredicate.describe("in the JDK, the annotations or themselves",
                    c -> c.getBaseComponentType().getPackageName().startsWith("java")
                            || c.getBaseComponentType().getPackageName().startsWith("dev.collectives.annotation")
                            || c.getBaseComponentType().isEquivalentTo(Rule.class)
                            || isPeerPairing(c.getBaseComponentType())));

    private static boolean isPeerPairing(JavaClass c) {
        return c.getName().equals(PeerPairing.class.getName())
                || c.getName().startsWith(PeerPairing.class.getName() + "$");
    }

    @ArchTest
    static final ArchRule theWriterNamesOnlyRuntimeApiTypes = classes()
            .that().resideInAPackage("..processor.writer..")
            .should().onlyDependOnClassesThat().resideInAnyPackage(JDK, "javax..", "com.palantir.javapoet..",
                    ANNOTATIONS, RULES, PROCESSOR, "dev.collectives.runtime");

    @ArchTest
    static final ArchRule theProcessorNeverTouchesABackend = noClasses()
            .that().resideInAPackage(PROCESSOR)
            .should().dependOnClassesThat().resideInAPackage(BACKENDS);

    @ArchTest
    static final ArchRule backendsUseOnlyTheRuntimeApiAndSpi = classes()
            .that().resideInAPackage(BACKENDS)
            .should().onlyDependOnClassesThat().resideInAnyPackage(JDK, "javax..", "org.bytedeco..",
                    "com.google.auto.service..", ANNOTATIONS, RULES, "dev.collectives.runtime..", BACKENDS);

    @ArchTest
    static final ArchRule backendsDoNotReachIntoEachOther = slices()
            .matching("dev.collectives.backend.(*)..").should().notDependOnEachOther();

    @ArchTest
    static final ArchRule theApiNeverReachesIntoABackend = noClasses()
            .that().resideInAnyPackage("dev.collectives.runtime..", ANNOTATIONS)
            .should().dependOnClassesThat().resideInAnyPackage(BACKENDS, PROCESSOR);
}

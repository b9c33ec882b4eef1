package dev.collectives.runtime.bootstrap;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * A job's failure is data ({@link Cause}: its kind and the ranks at fault beside the words): which communicators it
 * concerns and whom it blames is read from those, so no code of the control plane, of what the backends share or of
 * the backends reads a failure's words with a pattern. Only the settings ({@code Settings}: a variable's name and its
 * number) and the names of data types in a library's dialect ({@code Dialect}) are read so.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class FailuresAreDataTest {
    @ArchTest
    static final ArchRule noFailureIsParsed = noClasses()
            .that()
            .resideInAnyPackage(
                    "dev.collectives.runtime.bootstrap..", "dev.collectives.runtime.spi..", "dev.collectives.backend..")
            .and()
            .doNotHaveFullyQualifiedName(Settings.class.getName())
            .and()
            .doNotHaveFullyQualifiedName("dev.collectives.backend.device.Dialect")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("java.util.regex..")
            .orShould()
            .callMethod(String.class, "matches", String.class)
            .orShould()
            .callMethod(String.class, "replaceAll", String.class, String.class)
            .orShould()
            .callMethod(String.class, "replaceFirst", String.class, String.class)
            .orShould()
            .callMethod(String.class, "split", String.class)
            .orShould()
            .callMethod(String.class, "split", String.class, int.class)
            .because("what a failure concerns and whom it blames are its Cause's kind and ranks, not its words");
}

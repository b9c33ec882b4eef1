package dev.collectives.runtime;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Set;

/**
 * What users program against names no internal type: an {@code internal} package is public only for generated code
 * and the project's benchmarks, and may change without notice, so a user-facing signature that named one would make
 * user code depend on it.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class PublicSignaturesTest {
    private static final Set<JavaModifier> VISIBLE = Set.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED);

    @ArchTest
    static final ArchRule userFacingSignaturesNameNoInternalType = classes()
            .that()
            .resideInAnyPackage(
                    "dev.collectives.runtime",
                    "dev.collectives.runtime.bootstrap",
                    "dev.collectives.runtime.spi",
                    "dev.collectives.annotation",
                    "dev.collectives.rules")
            .and()
            .arePublic()
            .should(nameNoInternalTypeInTheirPublicSignatures());

    private static ArchCondition<JavaClass> nameNoInternalTypeInTheirPublicSignatures() {
        return new ArchCondition<>("name no type of an internal package in their supertypes, public or protected"
                + " methods and constructors, or public or protected fields") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                String name = type.getName();
                type.getRawSuperclass().ifPresent(s -> check(type, name + " extends", s, events));
                type.getRawInterfaces().forEach(i -> check(type, name + " implements", i, events));
                for (JavaCodeUnit code : type.getCodeUnits()) {
                    if (isVisible(code.getModifiers())) {
                        check(code, code.getFullName() + " returns", code.getReturnType(), events);
                        code.getParameterTypes().forEach(p -> check(code, code.getFullName() + " takes", p, events));
                    }
                }
                for (JavaField field : type.getFields()) {
                    if (isVisible(field.getModifiers())) {
                        check(field, field.getFullName() + " is a", field.getType(), events);
                    }
                }
            }

            private void check(Object member, String signature, JavaType named, ConditionEvents events) {
                for (JavaClass involved : named.getAllInvolvedRawTypes()) {
                    if (isInternal(involved)) {
                        events.add(SimpleConditionEvent.violated(
                                member,
                                signature + " " + involved.getName()
                                        + ", a type of an internal package, which may change without notice: name an API"
                                        + " type instead, or take the member out of the public API"));
                    }
                }
            }
        };
    }

    private static boolean isVisible(Set<JavaModifier> modifiers) {
        return modifiers.stream().anyMatch(VISIBLE::contains);
    }

    private static boolean isInternal(JavaClass type) {
        String name = type.getBaseComponentType().getPackageName();
        return name.endsWith(".internal") || name.contains(".internal.");
    }
}

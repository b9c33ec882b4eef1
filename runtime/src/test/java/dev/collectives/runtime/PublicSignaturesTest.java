package dev.collectives.runtime;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
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
import java.util.function.Predicate;

/**
 * What users program against names no type they should not import: an {@code internal} package is public only for
 * generated code and the project's benchmarks, and the control plane ({@code runtime.bootstrap}) only for the
 * backends; both may change without notice, so a user-facing signature that named one would make user code depend
 * on it.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class PublicSignaturesTest {
    private static final Set<JavaModifier> VISIBLE = Set.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED);

    @ArchTest
    static final ArchRule userFacingSignaturesNameNoInternalType = classes()
            .that()
            .resideInAnyPackage(
                    "dev.collectives.runtime",
                    "dev.collectives.runtime.bootstrap..",
                    "dev.collectives.runtime.spi",
                    "dev.collectives.annotation",
                    "dev.collectives.rules")
            .and()
            .arePublic()
            .should(nameInTheirPublicSignaturesNo(
                    "type of an internal package",
                    PublicSignaturesTest::isInternal,
                    member -> false,
                    "which may change without notice: name an API type instead, or take the member out of the public"
                            + " API"));

    /**
     * Users import the whole multi-process API from {@code dev.collectives.runtime}: no signature there names a type
     * of the control plane ({@code runtime.bootstrap}, not API), but the rendezvous that backends take from
     * {@link Bootstrap#rendezvous()}.
     */
    @ArchTest
    static final ArchRule usersImportTheMultiProcessApiFromOnePackage = classes()
            .that()
            .resideInAPackage("dev.collectives.runtime")
            .and()
            .arePublic()
            .should(nameInTheirPublicSignaturesNo(
                    "type of the control plane",
                    type -> type.getPackageName().startsWith("dev.collectives.runtime.bootstrap"),
                    member -> member.getOwner().isEquivalentTo(Bootstrap.class)
                            && member.getName().equals("rendezvous"),
                    "which is not API: users import the multi-process API from dev.collectives.runtime"));

    /**
     * Names no {@code forbidden} type in a supertype, a public or protected method or constructor but the
     * {@code exempt}, or a public or protected field.
     */
    private static ArchCondition<JavaClass> nameInTheirPublicSignaturesNo(
            String what, Predicate<JavaClass> forbidden, Predicate<JavaMember> exempt, String advice) {
        return new ArchCondition<>("name no " + what + " in their supertypes, public or protected methods and"
                + " constructors, or public or protected fields") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                String name = type.getName();
                type.getRawSuperclass().ifPresent(s -> check(type, name + " extends", s, events));
                type.getRawInterfaces().forEach(i -> check(type, name + " implements", i, events));
                for (JavaCodeUnit code : type.getCodeUnits()) {
                    if (isVisible(code.getModifiers()) && !exempt.test(code)) {
                        check(code, code.getFullName() + " returns", code.getReturnType(), events);
                        code.getParameterTypes().forEach(p -> check(code, code.getFullName() + " takes", p, events));
                    }
                }
                for (JavaField field : type.getFields()) {
                    if (isVisible(field.getModifiers()) && !exempt.test(field)) {
                        check(field, field.getFullName() + " is a", field.getType(), events);
                    }
                }
            }

            private void check(Object member, String signature, JavaType named, ConditionEvents events) {
                for (JavaClass involved : named.getAllInvolvedRawTypes()) {
                    if (forbidden.test(involved)) {
                        events.add(SimpleConditionEvent.violated(
                                member, signature + " " + involved.getName() + ", a " + what + ", " + advice));
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

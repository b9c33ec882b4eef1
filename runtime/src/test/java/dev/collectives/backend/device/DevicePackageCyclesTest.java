package dev.collectives.backend.device;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

/**
 * The device backend's classes depend on each other one way: a communicator's parts get what they need when made
 * ({@link DeviceRank}) and never call back into it, and what forms a new communicator (a grow, a replacement, a
 * join) returns what formed ({@link FormedComm}) instead of making one.
 */
@AnalyzeClasses(packages = "dev.collectives.backend.device", importOptions = ImportOption.DoNotIncludeTests.class)
class DevicePackageCyclesTest {
    private static final String PACKAGE = "dev.collectives.backend.device";

    /** Each top-level class of the package, with its nested classes, is one slice; other packages are left out. */
    private static final SliceAssignment BY_CLASS = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            if (!javaClass.getPackageName().equals(PACKAGE)) {
                return SliceIdentifier.ignore();
            }
            String name = javaClass.getName().substring(PACKAGE.length() + 1);
            int nested = name.indexOf('$');
            return SliceIdentifier.of(nested < 0 ? name : name.substring(0, nested));
        }

        @Override
        public String getDescription() {
            return "the classes of " + PACKAGE;
        }
    };

    @ArchTest
    static final ArchRule noCycleAmongTheClasses =
            SlicesRuleDefinition.slices().assignedFrom(BY_CLASS).should().beFreeOfCycles();

    @ArchTest
    static final ArchRule theCommunicatorsPartsNeverNameIt = noClasses()
            .that()
            .haveNameMatching("dev\\.collectives\\.backend\\.device\\.(NativeComm|DeviceRank|DeviceProbe"
                    + "|DeviceCollectives|DeviceAllocations|DeviceStream|DeviceStreamEvent|DeviceGraph|NativeMemory"
                    + "|DeviceRegistration|DeviceWindow|DeviceVirtualMemory|MappedHostStaging|SplitMembers|GrowInit"
                    + "|ReplacementInit|SurvivorsInit|ChildHandles|CommJob)(\\$.*)?")
            .should()
            .dependOnClassesThat()
            .haveSimpleName("DeviceCommunicator");
}

package dev.collectives.runtime.bootstrap;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Gatherer;
import dev.collectives.runtime.Peers;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.UniqueId;

/**
 * The control plane (the rendezvous, its server and members, the job's settings) is a part of its own: it knows
 * nothing of the backends, of what backends share, or of the communicator API it serves. Of the runtime's user API
 * it names only the exceptions every failure is, its result code and the values users give it (where the ranks meet,
 * a gatherer, a unique id's and the peers' settings); never the entry points built on it ({@code Bootstrap},
 * {@code RendezvousServer}). That users need not import it is {@code PublicSignaturesTest}'s.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class ControlPlaneLayeringTest {
    private static final String CONTROL_PLANE = "dev.collectives.runtime.bootstrap..";
    private static final String USER_API = "dev.collectives.runtime";

    @ArchTest
    static final ArchRule knowsNoBackend = noClasses()
            .that()
            .resideInAPackage(CONTROL_PLANE)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "dev.collectives.backend..", "dev.collectives.runtime.spi..", "dev.collectives.runtime.internal..");

    @ArchTest
    static final ArchRule knowsNoCommunicatorNorTheEntryPoints = noClasses()
            .that()
            .resideInAPackage(CONTROL_PLANE)
            .should()
            .dependOnClassesThat(resideInAPackage(USER_API)
                    .and(not(type(CollectivesException.class)))
                    .and(not(type(Result.class)))
                    .and(not(type(BootstrapException.class)))
                    .and(not(type(RendezvousEndpoint.class)))
                    .and(not(type(RendezvousEndpoint.Kind.class)))
                    .and(not(type(Gatherer.class)))
                    .and(not(type(UniqueId.class)))
                    .and(not(type(Peers.class)))
                    .as("a type of the runtime's API other than the exceptions, the result code and the values users"
                            + " give the control plane (RendezvousEndpoint, Gatherer, UniqueId, Peers)"));
}

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
 *
 * <p>Inside it, four packages over the shared types of {@code runtime.bootstrap} (the rendezvous, its phases, causes,
 * settings and timeouts): {@code wire} (the framing, the message table, the token and the event loop both ends run),
 * {@code server} (the job's server), {@code member} (a rank's connection to it) and {@code file} (the shared-directory
 * rendezvous). The server and the member meet only on the wire; only the classes that put a job together
 * ({@code ControlPlane}, {@code TcpRendezvous}) name them both.
 */
@AnalyzeClasses(packages = "dev.collectives", importOptions = ImportOption.DoNotIncludeTests.class)
class ControlPlaneLayeringTest {
    private static final String CONTROL_PLANE = "dev.collectives.runtime.bootstrap..";
    private static final String USER_API = "dev.collectives.runtime";
    private static final String WIRE = "dev.collectives.runtime.bootstrap.wire..";
    private static final String SERVER = "dev.collectives.runtime.bootstrap.server..";
    private static final String MEMBER = "dev.collectives.runtime.bootstrap.member..";
    private static final String FILE = "dev.collectives.runtime.bootstrap.file..";

    @ArchTest
    static final ArchRule theWireKnowsNeitherEnd = noClasses()
            .that()
            .resideInAPackage(WIRE)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SERVER, MEMBER, FILE);

    @ArchTest
    static final ArchRule theServerKnowsNoMember = noClasses()
            .that()
            .resideInAPackage(SERVER)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(MEMBER, FILE);

    @ArchTest
    static final ArchRule theMemberKnowsNoServer = noClasses()
            .that()
            .resideInAPackage(MEMBER)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SERVER, FILE);

    @ArchTest
    static final ArchRule theFileRendezvousKnowsNoTcpEnd = noClasses()
            .that()
            .resideInAPackage(FILE)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SERVER, MEMBER);

    @ArchTest
    static final ArchRule onlyTheAssemblyNamesTheParts = noClasses()
            .that()
            .resideInAPackage("dev.collectives.runtime.bootstrap")
            .and(not(type(ControlPlane.class)))
            .and(not(type(TcpRendezvous.class)))
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SERVER, MEMBER, FILE);

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

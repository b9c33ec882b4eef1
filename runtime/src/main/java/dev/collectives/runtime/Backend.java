package dev.collectives.runtime;

/**
 * A collective library: {@code sim} (embedded), {@code nccl} or {@code mccl}. Implementations are found with
 * {@link java.util.ServiceLoader}; get one through {@link Backends}.
 */
public interface Backend {
    /** "sim", "nccl", "mccl" */
    String name();

    /** Checked without side effects; unavailable backends say which library or symbol is missing. */
    Availability availability();

    /**
     * {@code ranks} ranks on this host: threads for {@code sim}, one device each for the native backends.
     * Fails with a {@link CollectivesException} when unavailable or when there are fewer devices than ranks.
     */
    LocalCluster local(int ranks);

    /**
     * Joins this process to a multi-process job as {@code bootstrap.rank()} of {@code bootstrap.size()}: meets the
     * other ranks through {@code bootstrap.rendezvous()}, carries the communicator's unique id from rank 0 to every
     * rank, and forms the communicator on {@code bootstrap.device()}. Fails with a {@link CollectivesException}
     * naming the ranks and address involved when the job does not form within the bootstrap's timeout.
     *
     * <p>With a {@link Bootstrap#uniqueId()}, made by another rank's library (CuPy, PyTorch) or by
     * {@link #uniqueId()}, there is no rendezvous: the communicator is formed from that id
     * ({@code ncclCommInitRank}), and the job's other ranks need not run this library ({@link Bootstrap#peers()}).
     */
    default JoinedRank join(Bootstrap bootstrap) {
        throw CollectivesException.usage(
                bootstrap.rank(),
                "backend '" + name() + "' cannot join multi-process jobs; use local(n) for ranks of one process");
    }

    /**
     * A new unique id ({@code ncclGetUniqueId}) for the ranks of a job to form their communicator from, with this
     * library ({@link Bootstrap.Builder#uniqueId}) or another ({@code cupy.cuda.nccl.NcclCommunicator(n,
     * bytes.fromhex(id.hex()), rank)}). The library listens for the job's ranks in this process until they have
     * formed the communicator, so this process must live until then. Only {@code nccl} and {@code mccl} have one.
     */
    default UniqueId uniqueId() {
        throw CollectivesException.usage(
                -1,
                "backend '" + name() + "' makes no unique id: its ranks meet through a rendezvous "
                        + "(COLLECTIVES_RENDEZVOUS); a unique id is NCCL's or MCCL's, so use nccl or mccl");
    }

    /**
     * A communicator over {@code handle}, an {@code ncclComm_t}/{@code mcclComm_t} that another library made in
     * this process (e.g. CuPy's {@code NcclCommunicator.comm}, PyTorch's process group's). Its rank, size and device
     * are read from the library; pipelines bind and run on it. Closing it (or aborting it) never finalizes, destroys
     * or aborts the handle, which stays the other library's, as memory wrapped with {@link Communicator#wrap} stays
     * its owner's. {@code peers} says whether every rank runs this library ({@link Peers}). Only {@code nccl} and
     * {@code mccl} have such handles.
     */
    default Communicator wrapCommunicator(long handle, Peers peers) {
        throw CollectivesException.usage(
                -1,
                "backend '" + name() + "' cannot wrap a communicator handle: its communicators are its own, ranks "
                        + "of one simulated device; an ncclComm_t or mcclComm_t needs nccl or mccl");
    }
}

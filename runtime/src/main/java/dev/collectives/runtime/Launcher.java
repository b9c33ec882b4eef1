package dev.collectives.runtime;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The variables a launcher gives each process. Checked in this order: a process started by {@code mpirun} or
 * {@code torchrun} inside a Slurm allocation also inherits {@code SLURM_*} variables that describe the outer
 * step, not this process, so Slurm comes last.
 */
enum Launcher {
    OPEN_MPI(
            "Open MPI (mpirun)",
            "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_LOCAL_RANK",
            "OMPI_COMM_WORLD_LOCAL_SIZE"),
    PMI("PMI (MPICH/Intel MPI mpiexec)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    TORCHRUN("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"),
    SLURM("Slurm (srun)", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE");

    /** torchrun's rendezvous, also commonly exported by hand for other launchers. */
    static final String MASTER_ADDR = "MASTER_ADDR";

    static final String MASTER_PORT = "MASTER_PORT";
    /** Set by torchrun in its workers; its agent then holds MASTER_PORT on the first node. */
    static final String TORCHRUN_RUN_ID = "TORCHELASTIC_RUN_ID";

    private final String description;
    final String rankVariable;
    final String sizeVariable;
    final String localRankVariable;
    final String localSizeVariable;

    Launcher(
            String description,
            String rankVariable,
            String sizeVariable,
            String localRankVariable,
            String localSizeVariable) {
        this.description = description;
        this.rankVariable = rankVariable;
        this.sizeVariable = sizeVariable;
        this.localRankVariable = localRankVariable;
        this.localSizeVariable = localSizeVariable;
    }

    /** The first launcher whose rank variable is set. */
    static Optional<Launcher> detect(Map<String, String> environment) {
        return List.of(values()).stream()
                .filter(l -> present(environment, l.rankVariable))
                .findFirst();
    }

    private static boolean present(Map<String, String> environment, String name) {
        String value = environment.get(name);
        return value != null && !value.isBlank();
    }

    @Override
    public String toString() {
        return description;
    }
}

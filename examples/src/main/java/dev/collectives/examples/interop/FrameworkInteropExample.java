package dev.collectives.examples.interop;

import dev.collectives.annotation.DataType;
import dev.collectives.backend.device.DeviceCommunicator;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A framework owns the memory and the stream; the pipeline wraps both ({@code comm.wrap},
 * {@code comm.wrapStream}), runs on the framework's stream after the framework's own work, and the rank waits on
 * {@code whenDone()} instead of synchronizing. On nccl the framework is bytedeco's CUDA binding; on sim it is sim
 * foreign memory and a sim foreign stream, and the example says whether the CUDA binding would load here.
 */
public final class FrameworkInteropExample implements Example {
    private static final long BYTES = 4L * FrameworkGradients.COUNT;
    private static final long WAIT_SECONDS = 60;

    @Override
    public String name() {
        return "framework-interop";
    }

    @Override
    public String summary() {
        return "a framework owns the memory and the stream; the pipeline wraps both and waits on whenDone()";
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.PLAIN;
    }

    @Override
    public RankReport run(RankContext rank) throws Exception {
        Communicator comm = rank.comm();
        try (Framework framework = open(comm)) {
            long address = framework.allocate(BYTES);
            framework.upload(address, HostData.values(0, rank.rank(), 0, FrameworkGradients.COUNT));
            Stream stream = comm.wrapStream(framework.stream());
            DeviceBuffer gradients = comm.wrap(address, BYTES, DataType.FLOAT32);
            try (CollectiveFrameworkGradients pipeline = CollectiveFrameworkGradients.bind(comm, stream, gradients)) {
                pipeline.sum();
                stream.record().whenDone().get(WAIT_SECONDS, TimeUnit.SECONDS);
                float[] expected = new float[FrameworkGradients.COUNT];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = HostData.sum(0, comm.size(), i);
                }
                return new RankReport(
                        pipeline.describe() + "framework: " + framework.describe() + "\n",
                        HostData.compare(rank.rank(), "gradients", expected, HostData.read(gradients)));
            }
        }
    }

    /**
     * On a device backend the example needs a binding of the framework for that device: bytedeco's CUDA binding on
     * nccl, loadable here; there is no MUSA binding of it, so on mccl it is skipped.
     */
    @Override
    public Optional<String> inapplicable(Communicator comm) {
        Optional<String> unmet = Example.super.inapplicable(comm);
        if (unmet.isPresent() || !(comm instanceof DeviceCommunicator)) {
            return unmet;
        }
        if (!comm.backendName().equals("nccl")) {
            return Optional.of("needs a MUSA binding of the framework's runtime, and bytedeco binds CUDA only: run it "
                    + "on nccl or sim");
        }
        return CudaFramework.unavailable()
                .map(why -> "needs bytedeco's CUDA binding, which cannot load here (" + why + "); run it on sim");
    }

    /** The sim's foreign memory on sim, bytedeco's CUDA binding on nccl (where {@link #inapplicable} let it run). */
    private static Framework open(Communicator comm) {
        Optional<String> cudaUnavailable = CudaFramework.unavailable();
        if (comm instanceof DeviceCommunicator) {
            return new CudaFramework(((DeviceCommunicator) comm).device());
        }
        return new SimFramework(comm.rank()) {
            @Override
            public String describe() {
                return super.describe() + "; bytedeco's CUDA binding "
                        + cudaUnavailable
                                .map(why -> "cannot load here, so this example runs on sim only (" + why + ")")
                                .orElse("loads here: run with --backend nccl to use it");
            }
        };
    }
}

package dev.collectives.examples.pipelines;

import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Gather;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Scatter;
import dev.collectives.runtime.DeviceBuffer;

/**
 * A parameter server on rank {@link #SERVER}: it scatters one shard of its parameters to each rank, each rank works
 * on its shard, and the server gathers the results back, rank-major. Only the server uses the {@code parameters}
 * and {@code results} it sends from and gathers into; every rank declares them, as every buffer of a pipeline.
 */
@CollectivePipeline(registration = Registration.LOCAL)
public interface ParameterServerShards {
    /** Elements of one rank's shard. */
    long SHARD = 1024;
    /** The rank that holds the parameters. */
    int SERVER = 0;

    /** The server's parameters, one shard per rank. */
    @Buffer(type = DataType.FLOAT32, countExpr = "1024 * ranks")
    DeviceBuffer parameters();

    /** This rank's shard. */
    @Buffer(type = DataType.FLOAT32, count = SHARD)
    DeviceBuffer shard();

    /** The server's copy of every rank's result, rank-major. */
    @Buffer(type = DataType.FLOAT32, countExpr = "1024 * ranks")
    DeviceBuffer results();

    @Scatter(send = "parameters", recv = "shard", recvCount = SHARD, root = SERVER)
    void distribute();

    @Gather(send = "shard", recv = "results", sendCount = SHARD, root = SERVER)
    void collect();
}

package dev.collectives.examples.pipelines;

import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Send;
import dev.collectives.runtime.DeviceBuffer;

/**
 * A ring of point-to-point transfers: each rank sends its outbox to the next rank and receives the previous
 * rank's into its inbox, in one group (the generated step wraps its send and recv in one). Unregistered: the
 * library copies through its own buffers.
 */
@CollectivePipeline(registration = Registration.NONE)
public interface SendRecvRing {
    long COUNT = 4096;

    @Buffer(type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer outbox();

    @Buffer(type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer inbox();

    @Send(buffer = "outbox", count = COUNT, peer = Peer.NEXT)
    @Recv(buffer = "inbox", count = COUNT, peer = Peer.PREVIOUS)
    void pass();
}

package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

/** @deprecated going away */
@Deprecated(forRemoval = true, since = "0.1")
@CollectivePipeline(registration = Registration.GRAPH)
interface DeprecatedForRemoval {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
}

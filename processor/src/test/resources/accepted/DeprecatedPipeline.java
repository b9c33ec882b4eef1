package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

/** @deprecated kept for old callers */
@Deprecated
@CollectivePipeline(registration = Registration.LOCAL)
interface DeprecatedPipeline {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
}

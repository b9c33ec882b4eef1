package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.NONE)
interface DeprecatedMembers {
    /** @deprecated use b */
    @Deprecated
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    /** @deprecated use other */
    @Deprecated(forRemoval = true)
    @AllReduce(send = "a", recv = "b", count = 8) void step();
    @Window @Buffer(type = DataType.FLOAT32, count = 1024) DeviceBuffer c();
    @AllReduce(send = "b", recv = "c", count = 8) void other();
}

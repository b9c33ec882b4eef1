// expect: [DSL unknown-buffer] "names no accessor of RepeatedSecondUnknownRecv"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RepeatedSecondUnknownRecv {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8)
    @AllReduce(send = "a", recv = "bb", count = 8)  // <- here
    void step();
}

// expect: [DSL pipeline] "pipeline `ExtendsPipeline` extends `corpus.ExtendsPipelineBase`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExtendsPipeline extends ExtendsPipelineBase {  // <- here
    @AllReduce(send = "a", recv = "b", count = 8) void step();
}

@CollectivePipeline(registration = Registration.LOCAL)
interface ExtendsPipelineBase {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
}

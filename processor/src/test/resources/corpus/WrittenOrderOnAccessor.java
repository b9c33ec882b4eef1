// expect: [DSL accessor] "accessor `in()` carries @WrittenOrder; ops, @Grouped and @WrittenOrder belong on a void step method"
package corpus;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.WrittenOrder;
import dev.collectives.runtime.DeviceBuffer;

@CollectivePipeline(registration = Registration.NONE)
public interface WrittenOrderOnAccessor {
    @WrittenOrder // <- here
    @Buffer(type = DataType.FLOAT32, count = 64)
    DeviceBuffer in();

    @AllReduce(send = "in", recv = "in", count = 64)
    void step();
}

// expect: [DSL duplicate] "default method `bind` clashes with the generated class's static bind(comm, stream, ...)"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface DefaultBind {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
    default void bind(Communicator comm, Stream stream) { }  // <- here
}

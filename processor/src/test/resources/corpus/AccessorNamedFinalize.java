// expect: [DSL duplicate] "`finalize` is a method of Object"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface AccessorNamedFinalize {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer finalize();  // <- here
}

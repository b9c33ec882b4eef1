// expect: [DSL duplicate] "`aWindow` clashes with the accessor of the window registered on `a`, which the generated class adds"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface WindowAccessorClashesDefault {
    @Window @Buffer(type = DataType.FLOAT32, count = 1024) DeviceBuffer a();
    default DeviceBuffer aWindow() { return a(); }  // <- here
}

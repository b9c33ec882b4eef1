// expect: [DSL pipeline] "`Inner` is private"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

class PrivateNested {
@CollectivePipeline(registration = Registration.LOCAL)  // <- here
private interface Inner {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}
}

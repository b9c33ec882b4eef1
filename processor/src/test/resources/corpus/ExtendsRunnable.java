// expect: [DSL pipeline] "pipeline `ExtendsRunnable` extends `java.lang.Runnable`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExtendsRunnable extends Runnable {  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}

// expect: [DSL duplicate] "pipelines `corpus.GeneratedNameCollision.Inner` and `corpus.GeneratedNameCollision_Inner` would"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

interface GeneratedNameCollision {
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Inner { @Buffer(count = 64) DeviceBuffer a(); }
}

@CollectivePipeline(registration = Registration.NONE)  // <- here
interface GeneratedNameCollision_Inner { @Buffer(count = 64) DeviceBuffer b(); }

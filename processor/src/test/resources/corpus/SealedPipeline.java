// expect: [DSL pipeline] "pipeline `SealedPipeline` is sealed"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)  // <- here
sealed interface SealedPipeline permits SealedPipelineImpl {
    @Buffer(count = 64) DeviceBuffer a();
}
final class SealedPipelineImpl implements SealedPipeline { public DeviceBuffer a() { return null; } }

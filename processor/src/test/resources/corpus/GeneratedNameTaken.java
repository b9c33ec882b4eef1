// expect: [DSL duplicate]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)  // <- here
interface GeneratedNameTaken {
    @Buffer(count = 64) DeviceBuffer a();
}
final class CollectiveGeneratedNameTaken { }

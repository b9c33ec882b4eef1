// expect: [DSL duplicate] "the class generated for `GeneratedNameTaken` would be corpus.CollectiveGeneratedNameTaken, but a"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)  // <- here
interface GeneratedNameTaken {
    @Buffer(count = 64) DeviceBuffer a();
}
final class CollectiveGeneratedNameTaken { }

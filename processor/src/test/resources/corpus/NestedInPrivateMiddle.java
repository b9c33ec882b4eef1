// expect: [DSL pipeline] "`Middle` is private"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

class NestedInPrivateMiddle {
    private static class Middle {
        @CollectivePipeline(registration = Registration.LOCAL)  // <- here
        interface Inner { @Buffer(count = 64) DeviceBuffer a(); }
    }
}

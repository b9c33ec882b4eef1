// expect: [DSL pipeline] "@CollectivePipeline belongs on an interface"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)  // <- here
enum OnEnum { ONE }

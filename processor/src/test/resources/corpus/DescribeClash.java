// expect: [DSL duplicate] "`describe()` clashes with Pipeline.describe(), which the generated class implements"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface DescribeClash {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(count = 8) DeviceBuffer describe();  // <- here
}

package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface DefaultAndStaticMembers {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();

    default void stepTwice() {
        step();
        step();
    }

    default DeviceBuffer result() {
        return b();
    }

    static void close(DefaultAndStaticMembers p) {
        p.step();
    }

    static int describe() {
        return 0;
    }

    private void helper() {
    }
}

package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

/** Nested types named like the java.lang and javax types generated code uses. */
@CollectivePipeline(registration = Registration.GRAPH)
interface ShadowedJavaLangNames {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @External(type = DataType.FLOAT32, count = 64) DeviceBuffer x();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
    @Broadcast(send = "x", recv = "b", count = 8, root = 0) void spread();

    final class String { }
    final class Object { }
    @interface Override { }
    @interface Deprecated { }
    @interface SuppressWarnings { }
    @interface Generated { }
    final class Objects { }
    final class Math { }
    final class Long { }
    final class Integer { }
    final class Exception { }
    final class RuntimeException { }
    final class Throwable { }
    final class AutoCloseable { }
    final class List { }
    final class Arrays { }
}

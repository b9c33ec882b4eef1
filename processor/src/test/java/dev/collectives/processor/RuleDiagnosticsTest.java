package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import org.junit.jupiter.api.Test;

/**
 * For every compile-time rule and DSL tag: a source that breaks it, and the message (tag first, the offending
 * value, the fix, the docs anchor) at the file and line of the annotation value.
 */
class RuleDiagnosticsTest {
    private static void assertError(Sources source, String message, String lineMarker) {
        Compilation compilation = source.compile();
        assertThat(compilation).failed();
        assertThat(compilation)
                .hadErrorContaining(message)
                .inFile(source.file())
                .onLine(source.line(lineMarker));
    }

    // ---- R1 MIXED ------------------------------------------------------------------------------------------------

    @Test
    void r1MixedSendRegisteredRecvNot() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer b();",
                "  @AllReduce(send = \"a\",",
                "             recv = \"b\", count = 8) void step();");
        assertError(
                s,
                "[R1 MIXED] @AllReduce in `step()` mixes a registered and an unregistered buffer: send `a` is "
                        + "registered, recv `b` is registered = false",
                "recv = \"b\"");
        assertThat(s.compile()).hadErrorContaining("(see docs/rules.md#r1-mixed)");
    }

    @Test
    void r1MixedUnregisteredBufferInGraphPipeline() {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH",
                "  @Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");
        assertError(
                s,
                "[R1 MIXED] @AllReduce in GRAPH step `step()` uses `a`, which lies in a buffer declared "
                        + "registered = false",
                "void step()");
    }

    // ---- R3 MTLS-ALLOC ---------------------------------------------------------------------------------------------

    @Test
    void r3MtlsAllocLegacyBuffer() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP, "
                        + "allowLegacyRegistration = true",
                "  @Buffer(type = DataType.FLOAT32, count = 64,",
                "          allocator = Allocator.LEGACY) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");
        assertError(
                s,
                "[R3 MTLS-ALLOC] buffer `a` uses Allocator.LEGACY (cudaMalloc/musaMalloc), but MTLink SHARP "
                        + "registration needs ncclMemAlloc/mcclMemAlloc or a qualified allocator",
                "allocator = Allocator.LEGACY");
    }

    // ---- R7 ARENA --------------------------------------------------------------------------------------------------

    private static Sources arena(String recvView, String op) {
        return Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(count = 8192) DeviceBuffer block();",
                "  @View(of = \"block\", type = DataType.FLOAT32, count = 1024) DeviceBuffer sendbuff();",
                recvView,
                op);
    }

    @Test
    void r7ArenaViewOutsideItsBlock() {
        Sources s = arena(
                "  @View(of = \"block\", offsetBytes = 4800, type = DataType.FLOAT32, count = 1024) "
                        + "DeviceBuffer recvbuff();",
                "  @AllReduce(send = \"sendbuff\", recv = \"recvbuff\", count = 8) " + "void step();");
        assertError(
                s,
                "[R7 ARENA] view `recvbuff` reaches past the end of `block`: bytes [4800, 8896), but it holds "
                        + "8192 bytes",
                "offsetBytes = 4800");
    }

    @Test
    void r7ArenaViewMisaligned() {
        Sources s = arena(
                "  @View(of = \"block\", offsetBytes = 4098, type = DataType.FLOAT32, count = 16) "
                        + "DeviceBuffer recvbuff();",
                "  @AllReduce(send = \"sendbuff\", recv = \"recvbuff\", count = 8) " + "void step();");
        assertError(
                s,
                "[R7 ARENA] view `recvbuff` starts at byte 4098 of its allocation, not a multiple of the "
                        + "FLOAT32 element size 4",
                "offsetBytes = 4098");
    }

    @Test
    void r7ArenaOpReachesPastItsBuffer() {
        Sources s = arena(
                "  @View(of = \"block\", offsetBytes = 4096, type = DataType.FLOAT32, count = 1024) "
                        + "DeviceBuffer recvbuff();",
                "  @AllReduce(send = \"sendbuff\", recv = \"recvbuff\", recvOffset = 1000,"
                        + " count = 100) void step();");
        assertError(
                s,
                "[R7 ARENA] the recv of @AllReduce #1 in step() reaches past `recvbuff`: elements [1000, 1100), "
                        + "but it holds 1024",
                "recvOffset = 1000");
    }

    @Test
    void r7ArenaSendAndRecvOverlapWithoutCoinciding() {
        Sources s = arena(
                "  @View(of = \"block\", offsetBytes = 2048, type = DataType.FLOAT32, count = 1024) "
                        + "DeviceBuffer recvbuff();",
                "  @AllReduce(send = \"sendbuff\", recv = \"recvbuff\", count = 1000) " + "void step();");
        assertError(
                s,
                "[R7 ARENA] @AllReduce #1 in step(): send bytes [0, 4000) and recv bytes [2048, 6048) overlap "
                        + "without coinciding",
                "count = 1000");
    }

    @Test
    void r7ArenaAllGatherCannotRunInPlaceAtOneOffset() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.INT32, count = 256) DeviceBuffer data();",
                "  @AllGather(send = \"data\", recv = \"data\", sendCount = 16) void gather();");
        assertError(
                s,
                "[R7 ARENA] @AllGather #1 in gather(): send bytes [0, 64) and recv bytes [0, 16 * ranks * 4) "
                        + "overlap, and this op cannot run in place at the same offsets on every rank",
                "sendCount = 16");
    }

    @Test
    void r7ArenaAllReduceInPlaceIsFine() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.INT32, count = 256) DeviceBuffer data();",
                "  @AllReduce(send = \"data\", recv = \"data\", count = 256) void sum();");
        assertThat(Sources.compiler(true).compile(s.file())).succeededWithoutWarnings();
    }

    @Test
    void r7ArenaAllGatherAgainstDeclaredRanks() {
        Sources s = Sources.pipeline(
                "registration = Registration.NONE, ranks = 4",
                "  @Buffer(type = DataType.INT32, count = 256) DeviceBuffer in();",
                "  @Buffer(type = DataType.INT32, count = 256) DeviceBuffer out();",
                "  @AllGather(send = \"in\", recv = \"out\",",
                "             sendCount = 100) void gather();");
        assertError(
                s,
                "[R7 ARENA] the recv of @AllGather #1 in gather() reaches past `out`: elements [0, 400), but it "
                        + "holds 256",
                "sendCount = 100");
    }

    // ---- R8 IB-SHARP -----------------------------------------------------------------------------------------------

    @Test
    void r8IbSharpWarnsOnOpsItDoesNotServe() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 8)",
                "  @Broadcast(send = \"a\", recv = \"b\", count = 8, root = 0)",
                "  void step();");
        Compilation compilation = s.compile();
        assertThat(compilation).succeeded();
        assertThat(compilation)
                .hadWarningContaining("[R8 IB-SHARP] @Broadcast in `step()` is not served by IB SHARP")
                .inFile(s.file())
                .onLine(s.line("@Broadcast"));
    }

    // ---- R9 LEGACY -------------------------------------------------------------------------------------------------

    @Test
    void r9LegacyRegistrationNeedsTheOptIn() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64,",
                "          allocator = Allocator.LEGACY) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();",
                "  @Broadcast(send = \"a\", recv = \"b\", count = 8) void step();");
        assertError(
                s,
                "[R9 LEGACY] buffer `a` comes from Allocator.LEGACY (cudaMalloc/musaMalloc) and the LOCAL "
                        + "pipeline registers it",
                "allocator = Allocator.LEGACY");
        assertThat(s.compile()).hadErrorContaining("allowLegacyRegistration = true");
    }

    @Test
    void r9LegacyIsFineWhenIbSharpIsWhatItIsRegisteredFor() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP",
                "  @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.LEGACY) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.LEGACY) DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");
        assertThat(Sources.compiler(true).compile(s.file())).succeededWithoutWarnings();
    }

    // ---- R11 ALLOCATOR ---------------------------------------------------------------------------------------------

    private static Sources custom(String allocatorClass, String acceleration) {
        return Sources.pipeline(
                "registration = Registration.LOCAL" + acceleration,
                "  " + allocatorClass,
                "  @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM,",
                "          customAllocator = Mine.class) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");
    }

    private static final String BODY = " public DeviceMemory allocate(VirtualMemory vmm, long bytes) { "
            + "return new QualifiedVmmAllocator().allocate(vmm, bytes); } }";

    @Test
    void r11AllocatorWithoutQualifiedAllocator() {
        Sources s = custom("class Mine implements DeviceAllocator {" + BODY, "");
        assertError(
                s,
                "[R11 ALLOCATOR] buffer `a`: test.P.Mine is not annotated @QualifiedAllocator",
                "customAllocator = Mine.class");
    }

    @Test
    void r11AllocatorWithoutPosixFileDescriptor() {
        Sources s = custom(
                "@QualifiedAllocator(handleTypes = HandleType.FABRIC) class Mine implements DeviceAllocator {" + BODY,
                "");
        assertError(
                s,
                "[R11 ALLOCATOR] buffer `a`: test.P.Mine declares handle types [FABRIC] without "
                        + "POSIX_FILE_DESCRIPTOR",
                "customAllocator = Mine.class");
    }

    @Test
    void r11AllocatorWithoutFabricUnderMtlinkSharp() {
        Sources s = custom(
                "@QualifiedAllocator(handleTypes = HandleType.POSIX_FILE_DESCRIPTOR) class Mine implements "
                        + "DeviceAllocator {" + BODY,
                ", acceleration = Acceleration.MTLINK_SHARP");
        assertError(
                s,
                "[R11 ALLOCATOR] buffer `a`: test.P.Mine declares handle types [POSIX_FILE_DESCRIPTOR] without "
                        + "FABRIC, which MTLink SHARP registration needs",
                "customAllocator = Mine.class");
    }

    @Test
    void r11AllocatorNotADeviceAllocator() {
        Sources s = custom("@QualifiedAllocator(handleTypes = HandleType.POSIX_FILE_DESCRIPTOR) class Mine { }", "");
        assertError(
                s,
                "[R11 ALLOCATOR] buffer `a`: customAllocator test.P.Mine does not implement DeviceAllocator",
                "customAllocator = Mine.class");
    }

    @Test
    void r11AllocatorQualifiedCompilesCleanly() {
        Sources s = custom(
                "@QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) "
                        + "class Mine implements DeviceAllocator {" + BODY,
                ", acceleration = Acceleration.MTLINK_SHARP");
        assertThat(Sources.compiler(true).compile(s.file())).succeededWithoutWarnings();
    }

    // ---- R12 WINDOW ------------------------------------------------------------------------------------------------

    @Test
    void r12WindowOnLegacyMemory() {
        Sources s = Sources.pipeline(
                "registration = Registration.NONE",
                "  @Window",
                "  @Buffer(type = DataType.FLOAT32, count = 1024, allocator = Allocator.LEGACY) DeviceBuffer win();");
        assertError(s, "[R12 WINDOW] window `win` is on Allocator.LEGACY (cudaMalloc/musaMalloc) memory", "@Window");
    }

    @Test
    void r12WindowOffsetNotAlignedTo4096() {
        Sources s = Sources.pipeline(
                "registration = Registration.NONE",
                "  @Buffer(count = 65536) DeviceBuffer block();",
                "  @Window @View(of = \"block\", type = DataType.FLOAT32, count = 1024,",
                "                offsetBytes = 1024) DeviceBuffer win();");
        assertError(
                s,
                "[R12 WINDOW] window `win` starts at byte 1024 of its allocation; a window's head must be "
                        + "aligned to 4096 bytes",
                "offsetBytes = 1024");
    }

    @Test
    void r12WindowOnUnregisteredMemory() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Window",
                "  @Buffer(type = DataType.FLOAT32, count = 1024, registered = false) DeviceBuffer win();");
        assertError(
                s,
                "[R12 WINDOW] window `win` lies in buffer `win`, declared registered = false, but window "
                        + "registration registers that memory on every rank; remove registered = false, or the @Window",
                "@Window");
    }

    // ---- R13 TYPES -------------------------------------------------------------------------------------------------

    @Test
    void r13TypesDivisionLeavesARemainder() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL, ranks = 4",
                "  @Buffer(type = DataType.FLOAT32, count = 1000003) DeviceBuffer grads();",
                "  @Buffer(type = DataType.FLOAT32, count = 250001) DeviceBuffer shard();",
                "  @ReduceScatter(send = \"grads\", recv = \"shard\",",
                "                 recvCountExpr = \"1000003 / ranks\") void reduce();");
        assertError(
                s,
                "[R13 TYPES] reduce(): @ReduceScatter #1: recvCountExpr = \"1000003 / ranks\": 1000003 / ranks "
                        + "divides 1000003 by 4, which leaves a remainder of 3; choose sizes that divide exactly (pad to a "
                        + "multiple), or write floorDiv(1000003, ranks) to round down (see docs/rules.md#r13-types)",
                "recvCountExpr");
    }

    private static Sources typed(String recvType, String op) {
        return Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.INT32, count = 64) DeviceBuffer a();",
                "  @Buffer(type = DataType." + recvType + ", count = 64) DeviceBuffer b();",
                op);
    }

    @Test
    void r13TypesDiffer() {
        Sources s = typed("FLOAT32", "  @AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");
        assertError(
                s,
                "[R13 TYPES] @AllReduce in `step()` sends INT32 from `a` but receives into `b`, which is " + "FLOAT32",
                "recv = \"b\"");
    }

    @Test
    void r13TypesCountNotPositive() {
        Sources s = typed("INT32", "  @AllReduce(send = \"a\", recv = \"b\", count = 0) void step();");
        assertError(s, "[R13 TYPES] @AllReduce in `step()` has count = 0; counts are positive", "count = 0");
    }

    @Test
    void r13TypesAverageOfIntegers() {
        Sources s =
                typed("INT32", "  @AllReduce(send = \"a\", recv = \"b\", count = 8, op = ReduceOp.AVG) void step();");
        assertError(s, "[R13 TYPES] @AllReduce in `step()` uses ReduceOp.AVG on INT32", "ReduceOp.AVG");
    }

    @Test
    void r13TypesByteSizeOverflows() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT64,",
                "          count = Long.MAX_VALUE / 2) DeviceBuffer a();");
        assertError(
                s,
                "[R13 TYPES] @Buffer `a`: 4611686018427387903 x FLOAT64 (8 bytes each) overflows a long",
                "count = Long.MAX_VALUE / 2");
    }

    // ---- DSL tags --------------------------------------------------------------------------------------------------

    @Test
    void dslUnknownBufferSuggestsTheClosestName() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer sendbuff();",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer recvbuff();",
                "  @AllReduce(send = \"sendbuf\",",
                "             recv = \"recvbuff\", count = 8) void step();");
        assertError(
                s,
                "[DSL unknown-buffer] @AllReduce send = \"sendbuf\" names no accessor of P; did you mean "
                        + "`sendbuff`? (see docs/rules.md#dsl-unknown-buffer)",
                "send = \"sendbuf\"");
    }

    @Test
    void dslUnknownBufferInAView() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(count = 4096) DeviceBuffer arena();",
                "  @View(of = \"arean\", type = DataType.FLOAT32, count = 8) DeviceBuffer v();");
        assertError(
                s,
                "[DSL unknown-buffer] @View v() of = \"arean\" names no accessor of P; did you mean `arena`?",
                "of = \"arean\"");
    }

    @Test
    void aDeviceBufferAccessorWithoutItsAnnotationIsReportedOnceNotAtEveryOpThatNamesIt() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 64) void step();",
                "  @AllGather(send = \"b\", recv = \"a\", sendCount = 16) void gather();");
        Compilation compilation = s.compile();

        assertError(
                s,
                "[DSL accessor] `b()` returns DeviceBuffer but has no @Buffer, @View or @External",
                "DeviceBuffer b()");
        assertThat(compilation).hadErrorCount(1);
    }

    @Test
    void dslAccessorMustReturnDeviceBuffer() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL", "  @Buffer(type = DataType.FLOAT32, count = 64) int a();");
        assertError(s, "[DSL accessor] accessor `a()` returns `int`; @Buffer accessors return DeviceBuffer", "int a()");
    }

    @Test
    void dslStepWithoutOps() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  void forgotten();");
        assertError(s, "[DSL step] `void forgotten()` has no op annotation", "void forgotten()");
    }

    @Test
    void dslStepReturningAValue() {
        Sources s = typed("INT32", "  @AllReduce(send = \"a\", recv = \"b\", count = 8) int step();");
        assertError(s, "[DSL step] step `step()` returns `int`; steps return void", "int step()");
    }

    @Test
    void dslDuplicateAccessorKinds() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64)",
                "  @External(type = DataType.FLOAT32, count = 64) DeviceBuffer a();");
        assertError(
                s,
                "[DSL duplicate] `a()` is already declared by @Buffer; keep one of @Buffer and @External",
                "@External");
    }

    @Test
    void dslDuplicateNames() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @AllReduce(send = \"a\", recv = \"a\", count = 8) void a(int twice);");
        assertError(s, "[DSL duplicate] `a` is declared twice", "void a(int twice)");
    }

    @Test
    void dslGraphStepReturningAValue() {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @AllReduce(send = \"a\", recv = \"a\", countExpr = \"n\") int step(long n);");
        assertError(
                s,
                "[DSL graph-step] GRAPH step `step()` returns `int`; a graph launch returns nothing",
                "int step(long n)");
    }

    @Test
    void dslPipelineOnAClass() {
        Sources s =
                Sources.of("P", "@CollectivePipeline(registration = Registration.LOCAL)", "abstract class P {", "}");
        assertError(
                s, "[DSL pipeline] @CollectivePipeline belongs on an interface; `P` is a class", "@CollectivePipeline");
    }

    @Test
    void dslPipelineExtendingAnotherPipeline() {
        Sources s = Sources.of(
                "P",
                "@CollectivePipeline(registration = Registration.LOCAL)",
                "interface P extends Q {",
                "}",
                "@CollectivePipeline(registration = Registration.LOCAL)",
                "interface Q {",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "}");
        assertError(
                s,
                "[DSL pipeline] pipeline `P` extends `test.Q`; pipelines cannot inherit accessors or steps",
                "interface P extends Q");
    }

    @Test
    void dslMembersOutsideAPipelineAskForTheAnnotation() {
        Sources s = Sources.of(
                "P", "interface P {", "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();", "}");
        assertError(
                s,
                "[DSL pipeline] `P` is not annotated @CollectivePipeline, so no CollectiveP is generated for it, "
                        + "yet `a()` carries @Buffer; annotate `P` with @CollectivePipeline(registration = Registration.LOCAL) "
                        + "(or GRAPH, NONE) (see docs/rules.md#dsl-pipeline)",
                "interface P");
        assertThat(s.compile()).hadErrorCount(1);
    }

    @Test
    void dslDuplicateGeneratedClassNameTakenByAnotherType() {
        Sources s = Sources.of(
                "P",
                "@CollectivePipeline(registration = Registration.LOCAL)",
                "interface P {",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "}",
                "class CollectiveP {",
                "}");
        assertError(
                s,
                "[DSL duplicate] the class generated for `P` would be test.CollectiveP, but a type of that name "
                        + "already exists; rename one of them (see docs/rules.md#dsl-duplicate)",
                "@CollectivePipeline");
        assertThat(s.compile()).hadErrorCount(1);
    }

    @Test
    void dslDimForgottenIsOneErrorAtTheExpression() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  long elements();",
                "  @Buffer(type = DataType.FLOAT32,",
                "          countExpr = \"elements\") DeviceBuffer grads();");
        assertError(
                s,
                "[DSL dim] countExpr = \"elements\": unknown name `elements` at column 1; `long elements()` has "
                        + "no annotation: did you mean `@Dim long elements()`, a size given at bind? (see docs/rules.md#dsl-dim)",
                "countExpr");
        assertThat(s.compile()).hadErrorCount(1);
    }
}

package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * What the processor plans for a step, read in the generated class: the calls it issues and the line describe()
 * gives the step, in particular why ops that look fusable are not fused. (That a plan computes what the ops written
 * one by one compute is the examples' PlanEquivalencePropertyTest, on sim.)
 */
class StepPlansTest {
    private static final String BUFFERS = "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();\n"
            + "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();";

    private static String generated(String attributes, String... members) throws IOException {
        Compilation compilation = Sources.compiler(true)
                .compile(Sources.pipeline(attributes, members).file());
        assertThat(compilation).succeededWithoutWarnings();
        return compilation
                .generatedSourceFile("test.CollectiveP")
                .orElseThrow()
                .getCharContent(true)
                .toString()
                .replaceAll("\"\\s*\\+\\s*\"", ""); // describe()'s literals, joined again
    }

    @Test
    void adjacentOpsOfOtherBuffersOrRootsStayApartAndSaySo() throws IOException {
        String code = generated(
                "registration = Registration.NONE",
                BUFFERS,
                "  @AllReduce(send = \"a\", recv = \"b\", count = 4)",
                "  @AllReduce(send = \"b\", sendOffset = 4, recv = \"a\", recvOffset = 4, count = 4)",
                "  void buffers();",
                "  @Broadcast(send = \"a\", recv = \"b\", count = 4, root = 0)",
                "  @Broadcast(send = \"a\", sendOffset = 4, recv = \"b\", recvOffset = 4, count = 4, root = 1)",
                "  void roots();");
        assertTrue(code.contains("plan of buffers(): #2 not fused with #1: their send buffers differ (a, b)"), code);
        assertTrue(
                code.contains("plan of roots(): #2 not fused with #1: their roots differ (0, 1); issued #1 and #2 "
                        + "in one group"),
                code);
    }

    @Test
    void opsWhoseUnionWouldReadWhatItWritesStayInWrittenOrder() throws IOException {
        String code = generated(
                "registration = Registration.NONE",
                BUFFERS,
                "  @AllReduce(send = \"a\", recv = \"a\", recvOffset = 4, count = 4)",
                "  @AllReduce(send = \"a\", sendOffset = 4, recv = \"a\", recvOffset = 8, count = 4)",
                "  void chain();");
        assertTrue(
                code.contains("plan of chain(): #2 not fused with #1: one call over both would read bytes that it "
                        + "writes (its send and recv ranges would overlap)\\n"),
                code);
        assertFalse(code.contains("comm.groupStart()"), "#1 reads what #0 writes: no group\n" + code);
    }

    @Test
    void parametersFuseOnlyWhereAdjacencyIsProvedForEveryArgument() throws IOException {
        String code = generated(
                "registration = Registration.LOCAL",
                BUFFERS,
                "  @AllReduce(send = \"a\", sendOffsetExpr = \"p\", recv = \"b\", recvOffsetExpr = \"p\", count = 4)",
                "  @AllReduce(send = \"a\", sendOffsetExpr = \"p + 4\", recv = \"b\", recvOffsetExpr = \"p + 4\","
                        + " count = 4)",
                "  @AllReduce(send = \"a\", sendOffsetExpr = \"q\", recv = \"b\", recvOffsetExpr = \"q\", count = 4)",
                "  void step(long p, long q);");
        assertTrue(code.contains("comm.allReduce(a, p, b, p, 8L, DataType.FLOAT32, ReduceOp.SUM, stream);"), code);
        assertTrue(
                code.contains("plan of step(): fused 2 allreduces into one (#1-#2): send and recv ranges adjacent; "
                        + "#3 not fused with #2: send ranges not adjacent: #2 ends at element p + 4 + 4, #3 starts at q, which "
                        + "is not proven for every value of the step's parameters"),
                code);
    }

    @Test
    void externalsMayBeOneAllocation() throws IOException {
        String code = generated(
                "registration = Registration.NONE",
                "  @External(type = DataType.FLOAT32, count = 64) DeviceBuffer x();",
                "  @External(type = DataType.FLOAT32, count = 64) DeviceBuffer y();",
                "  @AllReduce(send = \"x\", recv = \"y\", count = 4)",
                "  @AllReduce(send = \"x\", sendOffset = 4, recv = \"y\", recvOffset = 4, count = 4)",
                "  void step();");
        assertTrue(
                code.contains(
                        "#2 not fused with #1: send `x` and recv `y` are externals, which may be one " + "allocation"),
                code);
    }

    @Test
    void planFalseIssuesTheOpsAsWritten() throws IOException {
        String code = generated(
                "registration = Registration.NONE, plan = false",
                BUFFERS,
                "  @AllReduce(send = \"a\", recv = \"b\", count = 4)",
                "  @AllReduce(send = \"a\", sendOffset = 4, recv = \"b\", recvOffset = 4, count = 4)",
                "  void step();");
        assertTrue(code.contains("plan of step(): the ops one by one, as written (plan = false)"), code);
        assertTrue(code.contains("comm.allReduce(a, b, 4L,"), code);
        assertFalse(
                code.contains("// fused: ") || code.contains("comm.groupStart()") || code.contains("step plan"), code);
    }
}

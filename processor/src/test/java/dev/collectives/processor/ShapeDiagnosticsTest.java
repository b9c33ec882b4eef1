package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Sizes at bind and at call: the DSL tags of expressions, dims, parameters and captures (message at the line of the
 * attribute), and the symbolic proofs: certainly wrong is a compile error with the rule's tag, proved needs no
 * check, the rest is checked in the generated code.
 */
class ShapeDiagnosticsTest {
    private static final String DIM = "  @Dim long elements();";
    private static final String GRADS =
            "  @Buffer(type = DataType.FLOAT32, countExpr = \"elements\") DeviceBuffer grads();";

    private static void assertError(Sources source, String message, String lineMarker) {
        Compilation compilation = source.compile();
        assertThat(compilation).failed();
        assertThat(compilation)
                .hadErrorContaining(message)
                .inFile(source.file())
                .onLine(source.line(lineMarker));
    }

    private static String generated(Sources source) throws IOException {
        Compilation compilation = source.compile();
        assertThat(compilation).succeeded();
        return compilation
                .generatedSourceFile("test.CollectiveP")
                .orElseThrow()
                .getCharContent(true)
                .toString();
    }

    /**
     * The generated source with every run of white space one space and each long literal's parts joined again: the
     * code as written, wherever a line wraps or a literal is cut to fit.
     */
    private static String unwrapped(Sources source) throws IOException {
        return generated(source).replaceAll("\\s+", " ").replace("\" + \"", "");
    }

    // ---- [DSL expression] and [DSL twins] -------------------------------------------------------------------------

    @Test
    void parseErrorNamesTheColumn() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements * (2\") void step();");
        assertError(
                s,
                "[DSL expression] countExpr = \"elements * (2\": missing `)` at column 14",
                "countExpr = \"elements * (2");
    }

    @Test
    void unknownNameGetsDidYouMean() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\",",
                "             countExpr = \"n\", recvOffsetExpr = \"ofset\") void step(long offset, long n);");
        assertError(
                s,
                "[DSL expression] recvOffsetExpr = \"ofset\": unknown name `ofset` at column 1; expressions "
                        + "name @Dim accessors, the step's parameters and `ranks`: did you mean `offset`?",
                "ofset");
    }

    @Test
    void stepParametersAreNotInScopeOfAccessors() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                "  @Buffer(type = DataType.FLOAT32, countExpr = \"n\") DeviceBuffer grads();",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\") void step(long n);");
        assertError(s, "countExpr = \"n\": unknown name `n` at column 1", "DeviceBuffer grads()");
    }

    @Test
    void bothTwinsGiven() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", count = 8, countExpr = \"elements\") void step();");
        assertError(s, "[DSL twins] both `count` and `countExpr` are given; give one", "count = 8");
    }

    @Test
    void neitherTwinGiven() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\") void step();");
        assertError(s, "[DSL twins] give `count` (a number) or `countExpr` (an expression)", "void step()");
    }

    @Test
    void constantOverflowWithDeclaredRanks() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL, ranks = 4",
                "  @Buffer(type = DataType.FLOAT32, countExpr = \"4611686018427387904 * ranks\") DeviceBuffer a();",
                "  @AllReduce(send = \"a\", recv = \"a\", count = 8) void step();");
        assertError(
                s, "[DSL expression] countExpr = \"4611686018427387904 * ranks\" overflows a long", "DeviceBuffer a()");
    }

    // ---- [DSL parameter], [DSL dim], [DSL capture] ------------------------------------------------------------------

    @Test
    void parameterOfAnotherType() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements\")",
                "  void step(float scale);");
        assertError(
                s,
                "[DSL parameter] parameter `float scale` of step `step`: step parameters are counts and "
                        + "offsets, `long` or `int`",
                "float scale");
    }

    @Test
    void unusedParameterIsAWarning() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements\")",
                "  void step(long unused);");
        Compilation compilation = s.compile();
        assertThat(compilation).succeeded();
        assertThat(compilation)
                .hadWarningContaining(
                        "[DSL parameter] parameter `unused` of step `step` is used by " + "no expression of its ops")
                .inFile(s.file())
                .onLine(s.line("long unused"));
    }

    @Test
    void parameterHidingADim() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements\")",
                "  void step(long elements);");
        assertError(
                s, "[DSL parameter] parameter `elements` of step `step` hides the @Dim `elements()`", "long elements)");
    }

    @Test
    void dimOfAnotherType() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                "  @Dim double elements();",
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", count = 8) void step();");
        assertError(s, "[DSL dim] @Dim `elements()` returns `double`", "double elements()");
    }

    @Test
    void captureOfAnUnknownParameter() {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH",
                DIM,
                GRADS,
                "  @Capture(param = \"m\", values = {8})",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\") void step(long n);");
        assertError(
                s,
                "[DSL capture] @Capture param = \"m\" is no parameter of `step`; did you mean `n`?",
                "param = \"m\"");
    }

    @Test
    void captureMustCoverEveryParameter() {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH",
                DIM,
                GRADS,
                "  @Capture(param = \"n\", values = {8})",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\", sendOffsetExpr = \"offset\",",
                "             recvOffsetExpr = \"offset\") void step(long offset, long n);");
        assertError(s, "[DSL capture] @Capture on `step` gives no values for parameter `offset`", "param = \"n\"");
    }

    @Test
    void captureBeyondTheCache() {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH, graphCache = 2",
                DIM,
                GRADS,
                "  @Capture(param = \"n\", values = {8, 16, 32})",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\") void step(long n);");
        assertError(
                s,
                "[DSL capture] @Capture on `step` captures 3 tuples (the product of the values), more than "
                        + "graphCache = 2 keeps",
                "values = {8, 16, 32}");
    }

    @Test
    void captureOfANegativeValue() {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH",
                DIM,
                GRADS,
                "  @Capture(param = \"n\", values = {-8})",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\") void step(int n);");
        assertError(
                s,
                "[DSL capture] @Capture of `n` has the value -8; parameters are at least 0 and this one is an " + "int",
                "values = {-8}");
    }

    @Test
    void captureOutsideGraph() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @Capture(param = \"n\", values = {8})",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\") void step(long n);");
        assertError(
                s, "[DSL capture] @Capture on `step`: only steps with parameters of a GRAPH pipeline", "param = \"n\"");
    }

    // ---- symbolic proofs -----------------------------------------------------------------------------------------

    @Test
    void certainlyOutsideIsAnR7Error() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @View(of = \"grads\", type = DataType.FLOAT32, countExpr = \"elements + 1\") DeviceBuffer more();",
                "  @AllReduce(send = \"more\", recv = \"more\", countExpr = \"elements\") void step();");
        assertError(
                s,
                "[R7 ARENA] view `more` reaches past the end of `grads`: bytes [0, (elements + 1) * 4), but it "
                        + "holds elements * 4 bytes",
                "DeviceBuffer more()");
    }

    @Test
    void certainlyPastTheBufferForEveryArgument() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements\",",
                "             sendOffsetExpr = \"offset + 1\", recvOffsetExpr = \"offset + 1\") void step(long offset);");
        assertError(
                s,
                "[R7 ARENA] the send of @AllReduce #1 in step() reaches past `grads`: elements [offset + 1, "
                        + "offset + 1 + elements), but it holds elements",
                "sendOffsetExpr");
    }

    @Test
    void certainlyEmptyIsAnR13Error() {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements - elements\") void step();");
        assertError(
                s,
                "[R13 TYPES] step(): @AllReduce #1: count is at least 1: 1 <= elements - elements holds for "
                        + "no value",
                "elements - elements");
    }

    @Test
    void provedConditionsGenerateNoCheck() throws IOException {
        Sources s = Sources.pipeline(
                "registration = Registration.LOCAL",
                DIM,
                GRADS,
                "  @View(of = \"grads\", type = DataType.FLOAT32, countExpr = \"elements / ranks * ranks\")",
                "  DeviceBuffer whole();",
                "  @AllReduce(send = \"whole\", recv = \"whole\", countExpr = \"elements / ranks * ranks\") void step();");
        String generated = generated(s);
        assertFalse(generated.contains("lies inside"), generated);
        assertFalse(generated.contains("stays inside"), generated);
        assertTrue(generated.contains("count is at least 1: 1 <= elements / ranks * ranks"), generated);
    }

    @Test
    void unknownConditionsAreCheckedAtTheCallInExactArithmetic() throws IOException {
        Sources s = Sources.pipeline(
                "registration = Registration.NONE",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n * 2\", sendOffsetExpr = \"offset\",",
                "             recvOffsetExpr = \"offset\") void step(long offset, int n);");
        String generated = unwrapped(s);
        assertTrue(
                generated.contains("send stays inside `grads`: offset + n * 2 <= elements\", "
                        + "Math.addExact(offset, Math.multiplyExact((long) n, 2L)), elements);"),
                generated);
        assertTrue(
                generated.contains("throw SizeChecks.overflow(comm, PIPELINE, \"step(...)\", overflow);"), generated);
        String step = generated.substring(generated.indexOf("public void step("));
        assertTrue(
                step.indexOf("checkStep(offset, n);")
                                < step.indexOf("calls.agree(\"step\", \"@AllReduce\", offset, n);")
                        && step.indexOf("calls.agree")
                                < step.indexOf("comm.allReduce(grads, offset, grads, offset, " + "(long) n * 2L"),
                step);
    }

    @Test
    void overflowingBytesAreCheckedAtBind() throws IOException {
        Sources s = Sources.pipeline(
                "registration = Registration.NONE",
                DIM,
                "  @Buffer(type = DataType.FLOAT64, countExpr = \"elements * elements\") DeviceBuffer grads();",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"elements\") void step();");
        String generated = unwrapped(s);
        assertTrue(
                generated.contains("its bytes fit a long: elements * elements <= 1152921504606846975\", "
                        + "Math.multiplyExact(elements, elements), 1152921504606846975L);"),
                generated);
    }

    @Test
    void parametersShadowingFieldsAreRenamed() throws IOException {
        Sources s = Sources.pipeline(
                "registration = Registration.NONE",
                DIM,
                GRADS,
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"comm\") void step(long comm);");
        String generated = generated(s);
        assertTrue(generated.contains("public void step(long comm_)"), generated);
        assertTrue(generated.contains("comm.allReduce(grads, 0L, grads, 0L, comm_,"), generated);
    }

    @Test
    void parametersWithoutDimsKeepBind() throws IOException {
        Sources s = Sources.pipeline(
                "registration = Registration.GRAPH",
                "  @Buffer(type = DataType.FLOAT32, count = 4096) DeviceBuffer grads();",
                "  @AllReduce(send = \"grads\", recv = \"grads\", countExpr = \"n\") void step(int n);");
        String generated = generated(s);
        assertTrue(generated.contains("public static CollectiveP bind(Communicator comm, Stream stream)"), generated);
        assertFalse(generated.contains("binder("), generated);
        assertTrue(
                generated
                        .replaceAll("\\s+", " ")
                        .contains("stepGraphs = new GraphCache(comm, stream, PIPELINE, "
                                + "\"step\", 16, GraphCacheOverflow.WARN, args -> {"),
                generated);
        assertTrue(generated.contains("count is at least 1: 1 <= n\", 1L, (long) n);"), generated);
        assertTrue(generated.contains("stays inside `grads`: n <= 4096\", (long) n, 4096L);"), generated);
    }
}

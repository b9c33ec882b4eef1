package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import org.junit.jupiter.api.Test;

/** {@code -Acollectives.rulesUrl=URL} turns the pointer at the end of each diagnostic into a link to its section. */
class RulesUrlOptionTest {
    private static final Sources MIXED = Sources.pipeline(
            "registration = Registration.LOCAL",
            "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
            "  @Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer b();",
            "  @AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");
    private static final Sources UNKNOWN_BUFFER = Sources.pipeline(
            "registration = Registration.LOCAL",
            "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
            "  @AllReduce(send = \"a\", recv = \"nosuch\", count = 8) void step();");

    @Test
    void pointersLinkToTheRulesPageWhereItsAddressIsGiven() {
        Compilation mixed = compileWith(MIXED, "-Acollectives.rulesUrl=https://example.org/collectives/rules.html");
        assertThat(mixed).hadErrorContaining("[R1 MIXED] ");
        assertThat(mixed).hadErrorContaining("(see https://example.org/collectives/rules.html#r1-mixed)");

        assertThat(compileWith(UNKNOWN_BUFFER, "-Acollectives.rulesUrl=https://example.org/rules.md"))
                .hadErrorContaining("(see https://example.org/rules.md#dsl-unknown-buffer)");
    }

    @Test
    void withoutTheOptionPointersNameTheSection() {
        assertThat(MIXED.compile()).hadErrorContaining("(see docs/rules.md#r1-mixed)");
    }

    private static Compilation compileWith(Sources sources, String option) {
        return Sources.compiler(false).withOptions("-Xlint:all", option).compile(sources.file());
    }
}

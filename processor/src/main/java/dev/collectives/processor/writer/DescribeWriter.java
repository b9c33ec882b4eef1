package dev.collectives.processor.writer;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.validation.StepPlan;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedDim;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedStep;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.Modifier;

/** {@code describe()}, each op's row with its registration path, and {@code close()}, which releases in reverse. */
final class DescribeWriter extends GenerationPart {
    /** A note's literal fits, with its quotes and {@code + }, a line of the describe table's arguments. */
    private static final int NOTE = 72;

    private final List<String> graphCaches;

    /** @param graphCaches the fields of the GRAPH steps' caches, whose counts describe() reports */
    DescribeWriter(Generation generation, List<String> graphCaches) {
        super(generation);
        this.graphCaches = graphCaches;
    }

    MethodSpec describe() {
        List<CodeBlock> rows = new ArrayList<>();
        for (ValidatedStep s : pipeline.steps()) {
            for (ValidatedOp o : s.ops()) {
                rows.add(CodeBlock.of(
                        "{$S,$W$S,$W$S,$W$L,$W$L,$W$L}",
                        s.name() + "()",
                        o.kind().method() + (s.grouped() ? " (grouped)" : ""),
                        describeBuffers(o),
                        describeOffsets(o),
                        describeCount(o),
                        path(o)));
            }
        }
        CodeBlock.Builder code = CodeBlock.builder()
                .add(
                        "return $T.describe($N,$W$N + $S,$Wnew $T[][] {$>$>",
                        DESCRIBE_TABLE,
                        name("comm"),
                        name("PIPELINE"),
                        " (" + registration + " registration)",
                        STRING)
                .add(rows.isEmpty() ? "" : "\n")
                .add(CodeBlock.join(rows, ",\n"))
                .add("}");
        for (CodeBlock note : planNotes()) {
            code.add(",\n$L", note);
        }
        for (ValidatedBuffer b : pipeline.buffers()) {
            if (b.window()) {
                code.add(
                        ",\n$T.windowHelpers($S,$W$L,$W$N,$W$N)",
                        DESCRIBE_TABLE,
                        b.name(),
                        b.windowSymmetric(),
                        name(b.name() + "Window"),
                        name("closed"));
            }
            if (b.kind() == BufferDecl.Kind.EXTERNAL) {
                code.add(",\n$T.externalMemory($S,$W$N)", DESCRIBE_TABLE, b.name(), name(b));
            }
        }
        for (CodeBlock note : sizeNotes()) {
            code.add(",\n$L", note);
        }
        code.add(");\n$<$<");
        return MethodSpec.methodBuilder("describe")
                .addAnnotation(OVERRIDE)
                .addModifiers(Modifier.PUBLIC)
                .returns(STRING)
                .addCode(code.build())
                .build();
    }

    String describeBuffers(ValidatedOp o) {
        String send = o.kind().hasSend() ? o.side(OpSide.Role.SEND).buffer() : "";
        String recv = o.kind().hasRecv() ? o.side(OpSide.Role.RECV).buffer() : "";
        String after = "";
        for (ValidatedOp.Argument argument : o.arguments()) {
            if (argument instanceof ValidatedOp.Root root) {
                after = " (root " + root.rank() + ")";
            } else if (argument instanceof ValidatedOp.Target p) {
                String peer = "peer "
                        + (p.peer() == Peer.ABSOLUTE
                                ? "rank " + p.rank()
                                : p.peer().name().toLowerCase(java.util.Locale.ROOT));
                send = o.kind().hasSend() ? send : peer;
                recv = o.kind().hasRecv() ? recv : peer;
            }
        }
        return send + " -> " + recv + after;
    }

    CodeBlock describeOffsets(ValidatedOp o) {
        Text text = new Text();
        for (ValidatedOp.Side side : o.sides()) {
            if (side.role() == OpSide.Role.RECV && o.kind().hasSend()) {
                text.add(" -> ");
            }
            shown(text, side.offset());
        }
        return text.code();
    }

    CodeBlock describeCount(ValidatedOp o) {
        Text text = new Text();
        shown(text, o.count());
        text.add(" x " + typeOf(o));
        for (ValidatedOp.Argument argument : o.arguments()) {
            if (argument instanceof ValidatedOp.Reduction reduction) {
                text.add(" " + reduction.op());
            }
        }
        return text.code();
    }

    /**
     * An attribute as describe() shows it: its value when written as a number; else its expression, with the
     * value bound at bind ("elements / ranks = 512"), or per call when it names the step's parameters.
     */
    private void shown(Text text, Expr e) {
        if (e instanceof Expr.Literal) {
            text.add(e.toString());
        } else if (e.usesParameters()) {
            text.add(e + " (per call)");
        } else {
            CodeBlock value = generation.value(e, Map.of());
            // concatenated after a string: only a sum or difference would be read as more concatenation
            text.add(e + " = ").add(Expressions.needsParentheses(e, '+', true) ? CodeBlock.of("($L)", value) : value);
        }
    }

    /**
     * The plan of each step of more than one op, as a line after the table: what was fused or grouped, and why ops
     * that look fusable were not; where bind decides the plan, the one it took.
     */
    private List<CodeBlock> planNotes() {
        List<CodeBlock> notes = new ArrayList<>();
        for (ValidatedStep s : pipeline.steps()) {
            if (s.ops().size() < 2) {
                continue;
            }
            StepPlan plan = s.plan();
            CodeBlock proven = planLine(s, plan.proven());
            notes.add(
                    plan.decidedAtBind()
                            ? CodeBlock.of(
                                    "($N$W? $L$W: $L)", name(s.name() + "Fused"), planLine(s, plan.atBind()), proven)
                            : proven);
        }
        return notes;
    }

    private static CodeBlock planLine(ValidatedStep s, StepPlan.Issue issue) {
        return Generation.literal("plan of " + s.name() + "(): " + String.join("; ", issue.notes()) + "\n", NOTE);
    }

    /** The dims, each accessor's sizes from expressions, and each graph cache, as lines after the table. */
    private List<CodeBlock> sizeNotes() {
        List<CodeBlock> notes = new ArrayList<>();
        if (!pipeline.dims().isEmpty()) {
            Text dims = new Text().add("dims: ");
            for (ValidatedDim d : pipeline.dims()) {
                dims.add((d == pipeline.dims().get(0) ? "" : ", ") + d.name() + " = ")
                        .add(CodeBlock.of("$N", name(d)));
            }
            notes.add(dims.add("\n").code());
        }
        for (ValidatedBuffer b : pipeline.buffers()) {
            if (b.origin() instanceof ValidatedBuffer.Placement p) {
                sizeNote(notes, b, "offsetBytes", p.offsetBytes());
            }
            sizeNote(notes, b, "count", b.count());
        }
        for (String cache : graphCaches) {
            notes.add(CodeBlock.of("$N.describe() + $S", cache, "\n"));
        }
        return notes;
    }

    /** "b(): count n = ..." where the attribute is an expression, not a literal. */
    private void sizeNote(List<CodeBlock> notes, ValidatedBuffer b, String attribute, Expr value) {
        if (!(value instanceof Expr.Literal)) {
            Text line = new Text().add(b.name() + "(): " + attribute + " ");
            shown(line, value);
            notes.add(line.add("\n").code());
        }
    }

    /** A string made of literal text and long values: one literal when it has no values. */
    private static final class Text {
        private final List<Object> parts = new ArrayList<>();

        Text add(String literal) {
            if (!parts.isEmpty() && parts.get(parts.size() - 1) instanceof String last) {
                parts.set(parts.size() - 1, last + literal);
            } else {
                parts.add(literal);
            }
            return this;
        }

        /** A value; the caller parenthesizes it where concatenation would change it. */
        Text add(CodeBlock value) {
            parts.add(value);
            return this;
        }

        CodeBlock code() {
            List<CodeBlock> code = new ArrayList<>();
            if (!(parts.get(0) instanceof String)) {
                code.add(CodeBlock.of("$S", ""));
            }
            for (Object p : parts) {
                code.add(p instanceof String literal ? CodeBlock.of("$S", literal) : (CodeBlock) p);
            }
            return CodeBlock.join(code, " + ");
        }
    }

    /** The registration path as Java: a literal when fixed at compile time, else a call to path(...). */
    CodeBlock path(ValidatedOp o) {
        if (!pipeline.registers()) {
            return CodeBlock.of("$S", "none: Registration.NONE, the library copies through its own buffers");
        }
        for (ValidatedOp.Side side : o.sides()) {
            if (!pipeline.buffer(side.buffer()).registered()) {
                return CodeBlock.of("$S", "none: `" + side.buffer() + "` is declared registered = false");
            }
        }
        boolean mtls = pipeline.mtlinkSharp() && o.kind().sharpServed();
        boolean ibs = pipeline.ibSharp() && o.kind().sharpServed();
        // indented a level further: wrapped, its arguments stand apart from the row's
        return CodeBlock.of(
                "$T.registrationPath($>$N,$W$L,$W$L,$W$T.$L$<)",
                DESCRIBE_TABLE,
                name("comm"),
                mtls,
                ibs,
                Registration.class,
                registration);
    }

    /** {@code close()}: releases {@code resources} by kind, in {@link Fragment.Release}'s order. */
    MethodSpec close(List<Fragment.Resource> resources) {
        MethodSpec.Builder c = MethodSpec.methodBuilder("close")
                .addAnnotation(OVERRIDE)
                .addModifiers(Modifier.PUBLIC)
                .addJavadoc(
                        "$L\n",
                        Comments.wrapped("Releases graphs first (R5), then registrations and windows "
                                + "(R6, R12), then memory. Idempotent."))
                .beginControlFlow("if ($N)", name("closed"))
                .addStatement("return")
                .endControlFlow()
                .addStatement("$N = true", name("closed"));
        List<CodeBlock> released = new ArrayList<>();
        for (Fragment.Release release : Fragment.Release.values()) {
            List<CodeBlock> fields = resources.stream()
                    .filter(r -> r.release() == release)
                    .map(r -> CodeBlock.of("$N", r.field()))
                    .toList();
            if (!fields.isEmpty()) {
                released.add(CodeBlock.of("$L$L", Comments.line(comment(release)), CodeBlock.join(fields, ",$W")));
            }
        }
        if (released.isEmpty()) {
            return c.build();
        }
        return c.addCode("$T.closeInOrder(\n$>$>$L);\n$<$<", LIFECYCLE, CodeBlock.join(released, ",\n"))
                .build();
    }

    /** The C that releases such resources, as close's comment names it. */
    private static String comment(Fragment.Release release) {
        switch (release) {
            case GRAPH:
                return CNames.runtime("GraphExecDestroy") + "(instance); " + CNames.runtime("GraphDestroy")
                        + "(graph): graphs before their buffers (R5)";
            case REGISTRATION:
                return CNames.ccl("CommDeregister") + "(comm, handle) (R6)";
            case WINDOW:
                return CNames.ccl("CommWindowDeregister") + "(comm, win): collective (R12)";
            default:
                return CNames.ccl("MemFree") + "(buffer)";
        }
    }
}

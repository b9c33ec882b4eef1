package dev.collectives.processor.writer;

import com.palantir.javapoet.CodeBlock;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedDim;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedStep;
import dev.collectives.rules.PeerPairing;
import java.util.Map;

/** Agreement and checks at bind: the externals' shapes, the fingerprint every rank exchanges (R1, R2, R14), and the
 * rules only bind can check (ranks, R8, R3, R9). */
final class CheckWriter extends GenerationPart {
    /** A fingerprint's value fits, with its quotes and a parenthesis, a wrapped {@code .add} in bind (column 28). */
    private static final int FINGERPRINT_VALUE = 69;

    CheckWriter(Generation generation) {
        super(generation);
    }

    Fragment checkExternals() {
        CodeBlock.Builder open = CodeBlock.builder();
        if (!externals().isEmpty()) {
            open.add(Comments.line(
                    "each external holds its declared count and type (R13), before any view is " + "laid out in it"));
        }
        for (ValidatedBuffer b : externals()) {
            open.addStatement(support(
                    BIND_CHECKS,
                    "requireExternal",
                    "$N, $S, $T.$L, $L",
                    name(b),
                    b.name(),
                    DATA_TYPE,
                    b.type(),
                    generation.value(b.count(), Map.of())));
        }
        return Fragment.of(open.build());
    }

    /**
     * Bind's agreement around {@code inside} (allocations, views, the checks one rank makes alone), so that a rank
     * that fails there takes part in the exchange with its failure and every rank fails with it. Without dims the
     * agreement ends with this rank's fingerprint; with dims the fingerprint was exchanged before (its dims size the
     * buffers), and the agreement ends with each rank's outcome.
     */
    Fragment agreement(Fragment inside) {
        CodeBlock.Builder open = CodeBlock.builder();
        if (pipeline.dims().isEmpty()) {
            open.add(Comments.line("allocate and check what this rank can alone, then agree across ranks: the "
                    + "same pipeline (R14), registered alike (R1), at the same offsets (R2); a rank that fails "
                    + "before that fails every rank"));
            open.add("$T.agree($N, $N, () -> {\n", AGREEMENT, name("comm"), name("stream"))
                    .indent();
        } else {
            open.add("// allocate and check what this rank can alone; a rank that fails fails every rank\n");
            open.add("$T.agreeOnOutcome($N, $N, () -> {\n", AGREEMENT, name("comm"), name("stream"))
                    .indent();
        }
        open.add(inside.open());
        if (pipeline.dims().isEmpty()) {
            open.add("return ").add(fingerprint(CodeBlock.of(""))).add(";\n");
        }
        return inside.withOpen(open.unindent().add("});\n").build());
    }

    /** Exchanges the fingerprint on its own: with dims, before anything is sized by them. */
    Fragment exchangeFingerprint() {
        CodeBlock.Builder open = CodeBlock.builder();
        open.add(Comments.line("every rank binds the same pipeline with the same dims (R14), registered alike "
                + "(R1), at the same offsets (R2)"));
        open.add(fingerprint(CodeBlock.of("\n.exchange($N, $N)", name("comm"), name("stream"))))
                .add(";\n");
        return Fragment.of(open.build());
    }

    /** {@code Fingerprint.builder(PIPELINE)...build()}, then {@code tail}, as one indented expression. */
    private CodeBlock fingerprint(CodeBlock tail) {
        CodeBlock.Builder f = CodeBlock.builder()
                .add("$T.builder($N)\n", FINGERPRINT, name("PIPELINE"))
                .indent()
                .indent()
                .add(".add($S,$W$S)\n", "registration", registration.name());
        if (!pipeline.acceleration().isEmpty()) {
            f.add(".add($S,$W$S)\n", "acceleration", pipeline.acceleration().toString());
        }
        if (pipeline.ranks() > 0) {
            f.add(".add($S,$W$L)\n", "ranks", pipeline.ranks());
        }
        for (ValidatedDim d : pipeline.dims()) {
            f.add(".add($S,$W$N)\n", "dim " + d.name(), name(d));
        }
        for (ValidatedBuffer b : pipeline.buffers()) {
            String key = b.kind().annotation().substring(1).toLowerCase(java.util.Locale.ROOT) + " " + b.name();
            f.add(".add($S,$W$L)\n", key, Generation.literal(shape(b), FINGERPRINT_VALUE));
            if (b.origin() instanceof ValidatedBuffer.Placement p) {
                f.add(
                        ".add($T.R2_OFFSET,$W$S,$W$L)\n",
                        RULE,
                        key + " offset bytes",
                        generation.value(p.offsetBytes(), Map.of()));
            } else if (b.kind() == BufferDecl.Kind.EXTERNAL && b.registered()) {
                // where R2 applies depends on the registration and, for LOCAL, on MTLink SHARP: run time decides
                f.add(
                        ".headOffset($N,$W$T.$L,$W$S,$W$N)\n",
                        name("comm"),
                        Registration.class,
                        registration,
                        key + " head offset",
                        name(b));
            }
            if (b.kind() != BufferDecl.Kind.VIEW) {
                f.add(".add($T.R1_MIXED,$W$S,$W$L)\n", RULE, key + " registered", b.registered());
            }
            if (b.window()) {
                f.add(
                        ".add($T.R12_WINDOW,$W$S,$W$S)\n",
                        RULE,
                        key + " window",
                        b.windowSymmetric() ? "symmetric" : "asymmetric");
            }
        }
        for (ValidatedStep s : pipeline.steps()) {
            f.add(
                    ".add($S,$W$S)\n",
                    "step " + s.name(),
                    s.ops().size() + (s.ops().size() == 1 ? " op" : " ops") + (s.grouped() ? ", grouped" : ""));
            for (ValidatedOp o : s.ops()) {
                f.add(
                        ".add($S,$W$L)\n",
                        "step " + s.name() + " op " + o.ordinal(),
                        Generation.literal(opShape(o), FINGERPRINT_VALUE));
            }
            if (s.plan().changesWrittenOrder()) {
                f.add(
                        ".add($S,$W$L)\n",
                        "step " + s.name() + " plan",
                        Generation.literal(s.plan().signature(), FINGERPRINT_VALUE));
            }
        }
        return f.add(".build()").add(tail).unindent().unindent().build();
    }

    String shape(ValidatedBuffer b) {
        String elements = b.type() + " x " + b.count();
        if (b.origin() instanceof ValidatedBuffer.Allocation a) {
            return (a.allocator() == Allocator.CUSTOM
                            ? a.customAllocator().toString()
                            : a.allocator().name()) + " " + elements;
        }
        return b.origin() instanceof ValidatedBuffer.Placement p ? elements + " in " + p.of() : elements;
    }

    String opShape(ValidatedOp o) {
        StringBuilder s = new StringBuilder(o.kind().method());
        for (ValidatedOp.Side side : o.sides()) {
            s.append(' ')
                    .append(side.role().word())
                    .append(' ')
                    .append(side.buffer())
                    .append('+')
                    .append(side.offset());
        }
        s.append(" count ").append(o.count()).append(' ').append(typeOf(o));
        for (ValidatedOp.Argument argument : o.arguments()) {
            if (argument instanceof ValidatedOp.Reduction reduction) {
                s.append(' ').append(reduction.op());
            } else if (argument instanceof ValidatedOp.Root root) {
                s.append(" root ").append(root.rank());
            } else if (argument instanceof ValidatedOp.Target peer) {
                s.append(" peer ")
                        .append(
                                peer.peer() == Peer.ABSOLUTE
                                        ? "rank " + peer.rank()
                                        : peer.peer().name());
            }
        }
        return s.toString();
    }

    Fragment checkRunTimeRules() {
        CodeBlock.Builder open = CodeBlock.builder();
        if (pipeline.ranks() > 0) {
            open.addStatement(support(BIND_CHECKS, "requireRanks", "$L", pipeline.ranks()));
        } else {
            checkRanksInRange(open);
        }
        if (pipeline.ibSharp() && pipeline.registers()) {
            open.addStatement(support(BIND_CHECKS, "requireOneRankPerNode", ""));
        }
        checkRangesApart(open);
        if (!pipeline.registers()) {
            return Fragment.of(open.build());
        }
        for (ValidatedBuffer b : pipeline.buffers()) {
            if (!b.registered()) {
                continue;
            }
            if (b.kind() == BufferDecl.Kind.EXTERNAL && pipeline.mtlinkSharp()) {
                open.addStatement(support(BIND_CHECKS, "requireMtlinkSharpMemory", "$N, $S", name(b), b.name()));
            }
            if (b.kind() == BufferDecl.Kind.EXTERNAL) {
                open.addStatement(support(BIND_CHECKS, "requireQualifiedForeignMemory", "$N, $S", name(b), b.name()));
            }
            checkLegacy(b, open);
        }
        return Fragment.of(open.build());
    }

    /**
     * R9 for registered memory that may be legacy: buffers declared LEGACY (the compile-time opt-in, or IB SHARP
     * serving them, was checked) and externals, whose allocator only bind knows.
     */
    private void checkLegacy(ValidatedBuffer b, CodeBlock.Builder open) {
        if (b.origin() instanceof ValidatedBuffer.Allocation a && a.allocator() == Allocator.LEGACY) {
            open.addStatement(
                    "$T.check($N,$W$N,$W$N + $S)",
                    LEGACY_REGISTRATION_RULE,
                    name("comm"),
                    name(b),
                    name("PIPELINE"),
                    ": `" + b.name() + "`");
        } else if (b.kind() == BufferDecl.Kind.EXTERNAL) {
            boolean allowed = pipeline.allowLegacyRegistration() || b.legacyServedByIbSharp();
            open.addStatement(
                    "$T.$L($N,$W$N,$W$N + $S)",
                    LEGACY_REGISTRATION_RULE,
                    allowed ? "check" : "checkWithoutOptIn",
                    name("comm"),
                    name(b),
                    name("PIPELINE"),
                    ": external buffer `" + b.name() + "`");
        }
    }

    /** Roots and absolute peers must name ranks of the communicator, which only bind knows when ranks = 0. */
    private void checkRanksInRange(CodeBlock.Builder open) {
        for (ValidatedStep s : pipeline.steps()) {
            for (ValidatedOp o : s.ops()) {
                for (ValidatedOp.Argument argument : o.arguments()) {
                    if (argument instanceof ValidatedOp.Root root) {
                        open.addStatement(
                                support(BIND_CHECKS, "requireRank", "$L, $S", root.rank(), "root of " + o.label()));
                    } else if (argument instanceof ValidatedOp.Target peer && peer.peer() == Peer.ABSOLUTE) {
                        open.addStatement(
                                support(BIND_CHECKS, "requireRank", "$L, $S", peer.rank(), "peer of " + o.label()));
                    }
                }
            }
        }
    }

    /**
     * [DSL step] where {@code ranks} is not declared: the sends and receives of each step pair up at the
     * communicator's size (the processor checked it where {@code ranks} is declared). A count that names the step's
     * parameters is known only at the call: then only the types are compared.
     */
    Fragment checkPairing() {
        if (pipeline.ranks() > 0) {
            return Fragment.NONE;
        }
        CodeBlock.Builder open = CodeBlock.builder();
        for (ValidatedStep s : pipeline.steps()) {
            CodeBlock.Builder ops = CodeBlock.builder();
            for (ValidatedOp o : s.ops()) {
                if (!o.kind().isPointToPoint()) {
                    continue;
                }
                ValidatedOp.Target peer = o.peer();
                boolean atCall = o.count().usesParameters();
                ops.add(
                        ",\n$T.$L($L, $T.$L, $L, $L, $T.$L)",
                        PeerPairing.Op.class,
                        o.kind() == OpKind.SEND ? "send" : "recv",
                        o.index(),
                        PEER,
                        peer.peer(),
                        peer.peer() == Peer.ABSOLUTE ? peer.rank() : -1,
                        atCall ? CodeBlock.of("null") : generation.value(o.count(), Map.of()),
                        DATA_TYPE,
                        typeOf(o));
            }
            if (!ops.isEmpty()) {
                open.add(Comments.line("every send of " + s.name() + "() meets its receive on the other rank, or "
                        + "every rank would wait for ever"));
                open.addStatement(support(BIND_CHECKS, "requirePaired", "$S$L", s.name(), ops.build()));
            }
        }
        return Fragment.of(open.build());
    }

    /**
     * R7 where only bind can tell: two externals may be given as parts of one tensor. (Ops whose ranges use the
     * step's parameters are checked at each call, ranges that depend on an undeclared ranks are bind-time
     * conditions of their own.)
     */
    private void checkRangesApart(CodeBlock.Builder open) {
        for (ValidatedStep s : pipeline.steps()) {
            for (ValidatedOp o : opsBetweenExternals(s, false)) {
                open.addStatement(externalsApart(o, Map.of()));
            }
        }
    }
}

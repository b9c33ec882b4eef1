package dev.collectives.processor.writer;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.NameAllocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedPipeline;
import dev.collectives.processor.validation.ValidatedStep;
import dev.collectives.rules.Rule;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A part of the writer: one concern of the generated class, returned as {@link Fragment}s and members for
 * {@link PipelineWriter} to assemble; names come from the {@link Generation} the parts share.
 */
abstract class GenerationPart {
    // made once: JavaPoet turns a Class argument into a ClassName anew at every use, and these are used per op
    static final ClassName DATA_TYPE = ClassName.get(DataType.class);
    static final ClassName PEER = ClassName.get(Peer.class);
    static final ClassName RULE = ClassName.get(Rule.class);
    static final ClassName STRING = ClassName.get(String.class);
    // The runtime's types are named, not loaded: the processor runs without the runtime on its path.
    private static final String RUNTIME = "dev.collectives.runtime";
    private static final String INTERNAL = RUNTIME + ".internal";
    static final ClassName PIPELINE = ClassName.get(RUNTIME, "Pipeline");
    static final ClassName COMMUNICATOR = ClassName.get(RUNTIME, "Communicator");
    static final ClassName STREAM = ClassName.get(RUNTIME, "Stream");
    static final ClassName DEVICE_BUFFER = ClassName.get(RUNTIME, "DeviceBuffer");
    static final ClassName REGISTRATION_HANDLE = ClassName.get(RUNTIME, "RegistrationHandle");
    static final ClassName REGISTERED_WINDOW = ClassName.get(RUNTIME, "RegisteredWindow");
    static final ClassName GRAPH_CACHE_STATS = ClassName.get(RUNTIME, "GraphCacheStats");
    static final ClassName LIFECYCLE = ClassName.get(INTERNAL, "Lifecycle");
    static final ClassName BIND_CHECKS = ClassName.get(INTERNAL, "BindChecks");
    static final ClassName SIZE_CHECKS = ClassName.get(INTERNAL, "SizeChecks");
    static final ClassName BYTE_RANGES = ClassName.get(INTERNAL, "ByteRanges");
    static final ClassName DESCRIBE_TABLE = ClassName.get(INTERNAL, "DescribeTable");
    static final ClassName FINGERPRINT = ClassName.get(INTERNAL, "Fingerprint");
    static final ClassName AGREEMENT = ClassName.get(INTERNAL, "Agreement");
    static final ClassName GRAPH_CACHE = ClassName.get(INTERNAL, "GraphCache");
    static final ClassName CALL_CHECK = ClassName.get(INTERNAL, "CallCheck");
    static final ClassName LEGACY_REGISTRATION_RULE = ClassName.get(INTERNAL, "LegacyRegistrationRule");

    /** Every accessor and step overrides: one spec for all of them. */
    static final AnnotationSpec OVERRIDE =
            AnnotationSpec.builder(Override.class).build();

    final Generation generation;
    final ValidatedPipeline pipeline;
    final Registration registration;
    final ClassName className;
    final NameAllocator methods;

    GenerationPart(Generation generation) {
        this.generation = generation;
        this.pipeline = generation.pipeline;
        this.registration = generation.registration;
        this.className = generation.className;
        this.methods = generation.methods;
    }

    String name(Object tag) {
        return generation.name(tag);
    }

    String name(ValidatedBuffer b) {
        return generation.name(b);
    }

    String name(ValidatedOp.Side side) {
        return generation.name(side);
    }

    String newName(String suggestion) {
        return generation.newName(suggestion);
    }

    List<ValidatedBuffer> externals() {
        return generation.externals();
    }

    DataType typeOf(ValidatedOp o) {
        return generation.typeOf(o);
    }

    /**
     * {@code Lifecycle.open(comm, PIPELINE, Registration.X, pipeline, pipeline::open)}: what {@code bind} returns,
     * the pipeline {@code pipeline} opened under its registration.
     */
    CodeBlock opened(String pipeline) {
        return support(
                LIFECYCLE,
                "open",
                "$T.$L, $N, $N::$N",
                Registration.class,
                registration,
                pipeline,
                pipeline,
                methods.get("open"));
    }

    CodeBlock support(ClassName owner, String method, String format, Object... args) {
        return generation.support(owner, method, format, args);
    }

    /**
     * The ops of {@code s} whose send and recv are two different externals, which the caller may have cut from one
     * allocation: those whose offsets and count use the step's parameters ({@code atCall}), or the others.
     */
    List<ValidatedOp> opsBetweenExternals(ValidatedStep s, boolean atCall) {
        return s.ops().stream()
                .filter(o -> o.sides().size() == 2
                        && betweenExternals(o.sides().get(0), o.sides().get(1))
                        && o.usesParameters() == atCall)
                .toList();
    }

    private boolean betweenExternals(ValidatedOp.Side send, ValidatedOp.Side recv) {
        ValidatedBuffer sendRoot =
                pipeline.buffer(pipeline.buffer(send.buffer()).root());
        ValidatedBuffer recvRoot =
                pipeline.buffer(pipeline.buffer(recv.buffer()).root());
        return sendRoot != recvRoot
                && sendRoot.kind() == BufferDecl.Kind.EXTERNAL
                && recvRoot.kind() == BufferDecl.Kind.EXTERNAL;
    }

    /**
     * R7 where only run time can tell, for an op of {@link #opsBetweenExternals}: its send and recv coincide (in
     * place) or lie apart if the externals are parts of one allocation. Offsets and counts are Java over the dims,
     * {@code ranks} and {@code params}, the step's parameters.
     */
    CodeBlock externalsApart(ValidatedOp o, Map<String, CodeBlock> params) {
        ValidatedOp.Side send = o.side(OpSide.Role.SEND);
        ValidatedOp.Side recv = o.side(OpSide.Role.RECV);
        Function<Expr, CodeBlock> java = e -> Expressions.plain(e, n -> generation.name(n, params));
        return support(
                BYTE_RANGES,
                "requireApart",
                "$S, $L, $N, $L, $L, $N, $L, $L",
                o.label(),
                o.extent(OpSide.Role.SEND) == OpKind.Extent.COUNT && o.extent(OpSide.Role.RECV) == OpKind.Extent.COUNT,
                name(send),
                java.apply(send.offset()),
                java.apply(o.elements(OpSide.Role.SEND)),
                name(recv),
                java.apply(recv.offset()),
                java.apply(o.elements(OpSide.Role.RECV)));
    }

    /** The element count of a fixed op's side as Java: 1024L, or 1024L * comm.size(). */
    CodeBlock elementsCode(ValidatedOp o, ValidatedOp.Side side) {
        long count = o.knownCount();
        return o.extent(side.role()) == OpKind.Extent.COUNT_TIMES_RANKS
                ? CodeBlock.of("$LL * comm.size()", count)
                : CodeBlock.of("$LL", count);
    }
}

package dev.collectives.processor.writer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.lang.model.element.Modifier;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;

/** Capture and steps: each op's arguments (buffer + offset), each step captured into a graph (GRAPH), and the
 * step methods, which launch the graph or issue the ops in declaration order. */
final class StepWriter extends GenerationPart {
    private final Map<Object, CodeBlock> arguments = new LinkedHashMap<>();

    StepWriter(Generation generation) {
        super(generation);
    }

    void prepareArguments() {
        boolean commented = false;
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                for (Side side : sides(o)) {
                    CodeBlock argument;
                    if (side.wholeBuffer()) {
                        argument = CodeBlock.of("$N", name(side.buffer()));
                    } else {
                        if (!commented) {
                            open.add("// the ops' arguments: buffer + offset, in elements of the buffer's type\n");
                            commented = true;
                        }
                        String field = newName(s.name() + "Op" + o.index() + side.role());
                        type.addField(DEVICE_BUFFER, field, Modifier.PRIVATE);
                        open.addStatement("$N = $L", field, support("slice", "$N, $S, $LL, $L",
                                name(side.buffer()), side.buffer().name(), side.offset(), side.countCode()));
                        argument = CodeBlock.of("$N", field);
                    }
                    arguments.put(key(o, side), argument);
                }
            }
        }
    }

    static List<Object> key(OpDecl o, Side side) {
        return List.of(o, side.role());
    }

    CodeBlock argument(OpDecl o, Side side) {
        return arguments.get(key(o, side));
    }

    void captureSteps() {
        for (StepDecl s : model.steps()) {
            String graph = newName(s.name() + "Graph");
            String exec = newName(s.name() + "Exec");
            type.addField(Graph.class, graph, Modifier.PRIVATE);
            type.addField(GraphExec.class, exec, Modifier.PRIVATE);
            open.add("// $L(): musaStreamBeginCapture(stream, musaStreamCaptureModeThreadLocal), the ops, "
                            + "musaStreamEndCapture(stream, &graph) (R4)\n", s.name())
                    .add("$N = $T.capture($N, () -> {\n$>", graph, SUPPORT, name("stream"))
                    .add(issue(s))
                    .add("$<});\n")
                    .add("// musaGraphInstantiate(&instance, graph, NULL, NULL, 0)\n")
                    .addStatement("$N = $N.instantiate()", exec, graph);
            graphs.add(exec);
            graphs.add(graph);
        }
    }

    void steps() {
        for (StepDecl s : model.steps()) {
            MethodSpec.Builder m = MethodSpec.methodBuilder(s.name())
                    .addAnnotation(Override.class)
                    .addModifiers(Modifier.PUBLIC)
                    .addStatement(support(registration == Registration.GRAPH ? "requireOpenForReplay" : "requireOpen",
                            "$N, $S", name("closed"), s.name()));
            if (registration == Registration.GRAPH) {
                m.addComment("musaGraphLaunch(instance, stream)")
                        .addStatement("$N.launch($N)", name(s.name() + "Exec"), name("stream"));
            } else {
                m.addCode(issue(s));
            }
            type.addMethod(m.build());
        }
    }

    /** The step's ops in declaration order, grouped when asked or when point-to-point. */
    CodeBlock issue(StepDecl s) {
        CodeBlock.Builder code = CodeBlock.builder();
        if (s.grouped()) {
            code.add("// mcclGroupStart()\n").addStatement("$N.groupStart()", name("comm"));
        }
        for (OpDecl o : s.ops()) {
            code.add(cComment(o)).addStatement(call(o));
        }
        if (s.grouped()) {
            code.add("// mcclGroupEnd()\n").addStatement("$N.groupEnd()", name("comm"));
        }
        return code.build();
    }

    CodeBlock cComment(OpDecl o) {
        DataType t = typeOf(o);
        List<String> args = new ArrayList<>();
        for (Side side : sides(o)) {
            args.add(CNames.pointer(side.buffer().name(), side.buffer().type(), side.offset()));
        }
        args.add(Long.toString(o.count()));
        args.add(CNames.dataType(t));
        if (o.kind().reduces()) {
            args.add(CNames.reduceOp(o.op()));
        }
        if (o.kind().hasRoot()) {
            args.add(Integer.toString(o.root()));
        }
        if (o.kind().isPointToPoint()) {
            args.add(CNames.peer(o.peer(), o.peerRank()));
        }
        args.add("comm");
        args.add("stream");
        return CodeBlock.of("// $L($L)\n", o.kind().cName(), String.join(", ", args));
    }

    CodeBlock call(OpDecl o) {
        List<CodeBlock> args = new ArrayList<>();
        for (Side side : sides(o)) {
            args.add(argument(o, side));
        }
        args.add(CodeBlock.of("$LL", o.count()));
        args.add(CodeBlock.of("$T.$L", DataType.class, typeOf(o)));
        if (o.kind().reduces()) {
            args.add(CodeBlock.of("$T.$L", ReduceOp.class, o.op()));
        }
        if (o.kind().hasRoot()) {
            args.add(CodeBlock.of("$L", o.root()));
        }
        if (o.kind().isPointToPoint()) {
            args.add(CodeBlock.of("$T.$L.resolve($N.rank(), $N.size(), $L)", Peer.class, o.peer(), name("comm"),
                    name("comm"), o.peerRank()));
        }
        args.add(CodeBlock.of("$N", name("stream")));
        return CodeBlock.of("$N.$L($L)", name("comm"), o.kind().method(), CodeBlock.join(args, ", "));
    }
}

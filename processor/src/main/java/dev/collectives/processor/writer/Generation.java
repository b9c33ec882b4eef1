package dev.collectives.processor.writer;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.TypeSpec;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedPipeline;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.Element;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;

/**
 * What the parts of one generation share: the validated pipeline, the generated class's name and the names of its
 * members and locals, allocated once for every part.
 */
final class Generation {
    final ValidatedPipeline pipeline;
    final Registration registration;
    final ClassName className;
    final NameAllocator names = new NameAllocator();
    final NameAllocator methods = new NameAllocator();
    /** Whether an expression known only at bind names {@code ranks} (undeclared): then a field holds comm.size(). */
    final boolean ranksField;

    Generation(ValidatedPipeline pipeline) {
        this.pipeline = pipeline;
        this.registration = pipeline.registration();
        this.className = ClassName.get(packageName(pipeline.type()), pipeline.generatedName());
        // method names of the interface are fixed; the generated class's own private method avoids them
        pipeline.steps().forEach(s -> methods.newName(s.name(), s));
        pipeline.buffers().forEach(b -> methods.newName(b.name(), b));
        pipeline.dims().forEach(d -> methods.newName(d.name(), d));
        methods.newName("open", "open");
        // fields and locals: the generated class's own come first, so that they read as in the guide's C
        for (String internal : List.of("comm", "stream", "closed", "PIPELINE", "pipeline")) {
            names.newName(internal, internal);
        }
        pipeline.buffers().forEach(b -> names.newName(b.name(), b));
        pipeline.dims().forEach(d -> names.newName(d.name(), d));
        this.ranksField = pipeline.ranks() == 0 && usesRanks(pipeline);
        if (ranksField) {
            names.newName(ModelReader.RANKS, ModelReader.RANKS);
        }
    }

    /** The generated class, implementing the pipeline's interface: its members are the parts' to add. */
    TypeSpec.Builder classBuilder() {
        TypeSpec.Builder type = TypeSpec.classBuilder(className)
                .addOriginatingElement(pipeline.type())
                .addModifiers(Modifier.FINAL)
                // member types of the interface are inherited: JavaPoet qualifies ours where a nested `Stream` of
                // the interface (or of those it extends) would capture the name
                .addSuperinterface(pipeline.type().asType())
                .addSuperinterface(GenerationPart.PIPELINE);
        if (pipeline.type().getModifiers().contains(Modifier.PUBLIC)) {
            type.addModifiers(Modifier.PUBLIC);
        }
        return type;
    }

    private static String packageName(TypeElement type) {
        Element e = type;
        while (!(e instanceof PackageElement)) {
            e = e.getEnclosingElement();
        }
        return ((PackageElement) e).getQualifiedName().toString();
    }

    String name(Object tag) {
        return names.get(tag);
    }

    String name(ValidatedBuffer b) {
        return names.get(b);
    }

    /** The field of an op side's accessor. */
    String name(ValidatedOp.Side side) {
        return names.get(pipeline.buffer(side.buffer()));
    }

    /** Expressions name ranks, or conditions left for bind do (allgather, reducescatter, alltoall reach × ranks). */
    private static boolean usesRanks(ValidatedPipeline pipeline) {
        List<Expr> expressions = new ArrayList<>(pipeline.expressions());
        pipeline.allConditions().forEach(c -> expressions.addAll(c.operands()));
        return expressions.stream().anyMatch(e -> e.anyName(n -> n.scope() == Expr.Scope.RANKS));
    }

    /** A dim's field or the ranks field; parameters through {@code params}. */
    CodeBlock name(Expr.Name n, Map<String, CodeBlock> params) {
        switch (n.scope()) {
            case DIM:
                return CodeBlock.of("$N", names.get(pipeline.dim(n.name())));
            case RANKS:
                return pipeline.ranks() > 0
                        ? CodeBlock.of("$LL", pipeline.ranks())
                        : ranksField
                                ? CodeBlock.of("$N", names.get(ModelReader.RANKS))
                                // a check of the writer's own (not of an expression) may name ranks: the communicator's
                                // size
                                : CodeBlock.of("(long) $N.size()", names.get("comm"));
            default:
                return params.get(n.name());
        }
    }

    /** An expression as Java: a literal, or over dims and ranks (and {@code params}). */
    CodeBlock value(Expr e, Map<String, CodeBlock> params) {
        return Expressions.plain(e, n -> name(n, params));
    }

    /** What bind does beyond allocating and agreeing, for the Javadoc of bind and binder. */
    String bindSummary() {
        switch (registration) {
            case GRAPH:
                return "captures each step into its own graph (graph registration)";
            case LOCAL:
                return "registers each allocation once (local registration)";
            default:
                return "registers nothing";
        }
    }

    /** A fresh member name, later found again with {@code name(suggestion)}. */
    String newName(String suggestion) {
        return names.newName(suggestion, suggestion);
    }

    List<ValidatedBuffer> externals() {
        return pipeline.buffers().stream()
                .filter(b -> b.kind() == BufferDecl.Kind.EXTERNAL)
                .toList();
    }

    DataType typeOf(ValidatedOp o) {
        return pipeline.buffer(o.typedBuffer()).type();
    }

    /** {@code Owner.method(comm, PIPELINE, args...)}: a call of the runtime every generated class makes alike. */
    CodeBlock support(ClassName owner, String method, String format, Object... args) {
        // one block, not the arguments' block inside the call's: this is made per op and per check
        CodeBlock.Builder call =
                CodeBlock.builder().add("$T.$L($N,$W$N", owner, method, name("comm"), name("PIPELINE"));
        if (!format.isEmpty()) {
            // its formats list arguments only: each may wrap
            call.add(",$W").add(format.replace(", ", ",$W"), args);
        }
        return call.add(")").build();
    }

    /**
     * A string literal, cut into concatenated parts of about equal length (after a space) when longer than
     * {@code maxLength}: JavaPoet wraps a line between tokens, never inside a literal. Callers pass the length that
     * fits where the literal lands, so that parts never share a line.
     */
    static CodeBlock literal(String text, int maxLength) {
        int partCount = (text.length() + maxLength - 1) / maxLength;
        int partLength = (text.length() + partCount - 1) / partCount;
        List<CodeBlock> parts = new ArrayList<>();
        int start = 0;
        while (text.length() - start > maxLength) {
            int end = text.lastIndexOf(' ', start + partLength) + 1;
            end = end > start ? end : start + partLength;
            parts.add(CodeBlock.of("$S", text.substring(start, end)));
            start = end;
        }
        parts.add(CodeBlock.of("$S", text.substring(start)));
        return CodeBlock.join(parts, "$W+ ");
    }
}

package dev.collectives.processor.writer;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedCondition;
import dev.collectives.processor.validation.ValidatedDim;
import dev.collectives.processor.validation.ValidatedStep;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.Modifier;

/**
 * Sizes at bind and at call: the dims (fields, accessors, the {@code binder(comm, stream)} that takes them by name),
 * and the checks of what the processor could not prove, each a few comparisons in exact arithmetic: at bind for
 * dims and {@code ranks}, in a {@code check<Step>} method for a step's parameters.
 */
final class ShapeWriter extends GenerationPart {
    /** A check's message fits, with its quotes and a comma, the continuation line of a check (column 20). */
    private static final int CHECK_MESSAGE = 77;

    ShapeWriter(Generation generation) {
        super(generation);
    }

    boolean hasDims() {
        return !pipeline.dims().isEmpty();
    }

    /** Whether sizes come from dims or the communicator's size: then bind checks them before it allocates. */
    boolean sizedAtBind() {
        return hasDims() || generation.ranksField;
    }

    /** Dims are held as long whatever they are declared as, so that every expression computes in long. */
    List<FieldSpec> fields() {
        List<FieldSpec> fields = new ArrayList<>();
        for (ValidatedDim d : pipeline.dims()) {
            fields.add(FieldSpec.builder(long.class, name(d), Modifier.PRIVATE, Modifier.FINAL)
                    .build());
        }
        if (generation.ranksField) {
            fields.add(FieldSpec.builder(long.class, name(ModelReader.RANKS), Modifier.PRIVATE, Modifier.FINAL)
                    .build());
        }
        return fields;
    }

    void constructorParameters(MethodSpec.Builder c) {
        for (ValidatedDim d : pipeline.dims()) {
            c.addParameter(long.class, name(d)).addStatement("this.$N = $N", name(d), name(d));
        }
        if (generation.ranksField) {
            c.addStatement("this.$N = $N.size()", name(ModelReader.RANKS), name("comm"));
        }
    }

    List<MethodSpec> accessors() {
        List<MethodSpec> accessors = new ArrayList<>();
        for (ValidatedDim d : pipeline.dims()) {
            boolean isInt = d.isInt();
            accessors.add(MethodSpec.methodBuilder(d.name())
                    .addAnnotation(OVERRIDE)
                    .addModifiers(Modifier.PUBLIC)
                    .returns(isInt ? TypeName.INT : TypeName.LONG)
                    .addStatement(isInt ? "return (int) $N" : "return $N", name(d))
                    .build());
        }
        return accessors;
    }

    /** The class {@code Binder}: one setter per dim and external, named after its accessor, then bind(). */
    TypeSpec binderClass() {
        ClassName binder = className.nestedClass("Binder");
        TypeSpec.Builder b = TypeSpec.classBuilder(binder)
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                .addJavadoc("Takes the dims and externals of {@link $T}\nby name, then binds it.\n", className)
                .addField(COMMUNICATOR, name("comm"), Modifier.PRIVATE, Modifier.FINAL)
                .addField(STREAM, name("stream"), Modifier.PRIVATE, Modifier.FINAL)
                .addMethod(MethodSpec.constructorBuilder()
                        .addModifiers(Modifier.PRIVATE)
                        .addParameter(COMMUNICATOR, name("comm"))
                        .addParameter(STREAM, name("stream"))
                        .addStatement("this.$N = $N", name("comm"), name("comm"))
                        .addStatement("this.$N = $N", name("stream"), name("stream"))
                        .build());
        List<CodeBlock> arguments =
                new ArrayList<>(List.of(CodeBlock.of("$N", name("comm")), CodeBlock.of("$N", name("stream"))));
        for (ValidatedDim d : pipeline.dims()) {
            TypeName value = d.isInt() ? TypeName.INT : TypeName.LONG;
            b.addField(FieldSpec.builder(value.box(), name(d), Modifier.PRIVATE).build());
            b.addMethod(MethodSpec.methodBuilder(d.name())
                    .addModifiers(Modifier.PUBLIC)
                    .returns(binder)
                    .addJavadoc("The dim `$L`: at least 1, the same on every rank.\n", d.name())
                    .addParameter(value, name(d))
                    .addStatement("this.$N = $N", name(d), name(d))
                    .addStatement("return this")
                    .build());
            arguments.add(CodeBlock.of(
                    "$T.given($N, $N, $N, $S)", BIND_CHECKS, name("comm"), name("PIPELINE"), name(d), d.name()));
        }
        for (ValidatedBuffer e : externals()) {
            b.addField(DEVICE_BUFFER, name(e), Modifier.PRIVATE);
            b.addMethod(MethodSpec.methodBuilder(e.name())
                    .addModifiers(Modifier.PUBLIC)
                    .returns(binder)
                    .addJavadoc("The {@code @External} buffer `$L` ($L x $L).\n", e.name(), e.count(), e.type())
                    .addParameter(DEVICE_BUFFER, name(e))
                    .addStatement("this.$N = $N", name(e), name(e))
                    .addStatement("return this")
                    .build());
            arguments.add(CodeBlock.of(
                    "$T.given($N, $N, $N, $S)", BIND_CHECKS, name("comm"), name("PIPELINE"), name(e), e.name()));
        }
        String pipeline = name("pipeline");
        b.addMethod(MethodSpec.methodBuilder("bind")
                .addModifiers(Modifier.PUBLIC)
                .returns(className)
                .addJavadoc(
                        "$L\n",
                        Comments.wrapped("Binds the pipeline as {@code bind} does for pipelines without "
                                + "dims; every setter must have been called.\nCollective: every rank of {@code comm} calls "
                                + "it."))
                .addStatement("$T $N =$Wnew $T($L)", className, pipeline, className, CodeBlock.join(arguments, ",$W"))
                .addStatement("return $L", opened(pipeline))
                .build());
        return b.build();
    }

    /** {@code binder(comm, stream)}, which starts a {@link #binderClass() Binder}. */
    MethodSpec binder() {
        ClassName binder = className.nestedClass("Binder");
        return MethodSpec.methodBuilder("binder")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(binder)
                .addJavadoc(
                        "$L\n",
                        Comments.wrapped("Starts binding on {@code comm}: give each dim and external, "
                                + "then call {@code bind()}, which allocates, checks that every rank binds the same pipeline "
                                + "with the same dims, and " + generation.bindSummary() + "."))
                .addParameter(COMMUNICATOR, name("comm"))
                .addParameter(STREAM, name("stream"))
                .addStatement("return new $T($N, $N)", binder, name("comm"), name("stream"))
                .build();
    }

    /** Dims at least 1, then what bind must check of the sizes and offsets they give. */
    Fragment bindChecks() {
        CodeBlock.Builder open = CodeBlock.builder();
        for (ValidatedDim d : pipeline.dims()) {
            open.addStatement(support(BIND_CHECKS, "requireDim", "$S, $N", d.name(), name(d)));
        }
        if (!pipeline.conditions().isEmpty()) {
            open.add("// sizes and offsets known at bind, checked in exact arithmetic (R7, R13)\n");
            open.add(guarded(pipeline.conditions(), Map.of(), "bind", "overflow"));
        }
        return Fragment.of(open.build());
    }

    /** {@code check<Step>(args)}: the step's arguments against R7 and R13, before any native call. */
    MethodSpec checkMethod(
            ValidatedStep s,
            String methodName,
            List<String> parameterNames,
            Map<String, CodeBlock> params,
            String overflow) {
        MethodSpec.Builder m = MethodSpec.methodBuilder(methodName)
                .addModifiers(Modifier.PRIVATE)
                .addJavadoc(
                        "$L\n",
                        Comments.wrapped("The arguments of {@code " + s.name() + "(...)} against R7 and "
                                + "R13: a few comparisons, nothing allocated."));
        for (int i = 0; i < s.parameters().size(); i++) {
            m.addParameter(TypeName.get(s.parameters().get(i).type()), parameterNames.get(i));
        }
        m.addCode(guarded(s.conditions(), params, s.name() + "(...)", overflow));
        opsBetweenExternals(s, true).forEach(o -> m.addStatement(externalsApart(o, params)));
        return m.build();
    }

    private CodeBlock guarded(
            List<ValidatedCondition> conditions, Map<String, CodeBlock> params, String where, String overflow) {
        CodeBlock.Builder code = CodeBlock.builder().beginControlFlow("try");
        for (ValidatedCondition c : conditions) {
            List<CodeBlock> operands = c.operands().stream()
                    .map(e -> Expressions.exact(e, n -> generation.name(n, params)))
                    .toList();
            switch (c.kind()) {
                case AT_MOST:
                    code.addStatement(support(
                            SIZE_CHECKS,
                            "requireAtMost",
                            "$T.$L, $L, $L, $L",
                            RULE,
                            c.rule(),
                            Generation.literal(c.text(), CHECK_MESSAGE),
                            operands.get(0),
                            operands.get(1)));
                    break;
                case ALIGNED:
                    code.addStatement(support(
                            SIZE_CHECKS,
                            "requireAligned",
                            "$T.$L, $L, $L, $L",
                            RULE,
                            c.rule(),
                            Generation.literal(c.text(), CHECK_MESSAGE),
                            operands.get(0),
                            operands.get(1)));
                    break;
                case DIVIDES:
                    // where, the division and its floorDiv form, as the catalogue message names them at compile time
                    code.addStatement(support(
                            SIZE_CHECKS,
                            "requireDivides",
                            "$L, $L, $L, $L, $L",
                            Generation.literal(c.what(), CHECK_MESSAGE),
                            Generation.literal(c.failureArguments().get(1), CHECK_MESSAGE),
                            Generation.literal(c.failureArguments().get(5), CHECK_MESSAGE),
                            operands.get(0),
                            operands.get(1)));
                    break;
                case APART:
                    // the two sides' labels, as the catalogue message names them at compile time
                    code.addStatement(support(
                            BYTE_RANGES,
                            "requireApartInGroup",
                            "$S, $S, $L",
                            c.failureArguments().get(0),
                            c.failureArguments().get(1),
                            CodeBlock.join(operands, ", ")));
                    break;
                default:
                    code.addStatement(support(
                            BYTE_RANGES,
                            "requireInPlaceOrApart",
                            "$S, $L, $L",
                            c.what(),
                            c.inPlace(),
                            CodeBlock.join(operands, ", ")));
            }
        }
        return code.nextControlFlow("catch ($T $N)", ArithmeticException.class, overflow)
                .addStatement("throw $L", support(SIZE_CHECKS, "overflow", "$S, $N", where, overflow))
                .endControlFlow()
                .build();
    }
}

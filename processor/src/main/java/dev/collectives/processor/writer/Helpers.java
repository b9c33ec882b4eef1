package dev.collectives.processor.writer;

import java.util.List;

import javax.lang.model.element.Modifier;

import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Rule;
import dev.collectives.runtime.Stream;

/** The private methods a generated class may need; each is emitted only where used. */
final class Helpers {
    private final String comm;
    private final String pipeline;
    private final String closed;
    private final Registration registration;

    Helpers(String comm, String pipeline, String closed, Registration registration) {
        this.comm = comm;
        this.pipeline = pipeline;
        this.closed = closed;
        this.registration = registration;
    }

    MethodSpec get(String helper) {
        switch (helper) {
            case "requireOpen": return requireOpen();
            case "slice": return slice();
            case "requireExternal": return requireExternal();
            case "requireRank": return requireRank();
            case "abandonCapture": return abandonCapture();
            case "path": return path();
            case "table": return table();
            default: throw new IllegalArgumentException("no helper " + helper);
        }
    }

    MethodSpec closeAfterFailure() {
        return MethodSpec.methodBuilder("closeAfterFailure")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .addJavadoc("Releases what a failed bind made, keeping the bind failure first.\n")
                .addParameter(Pipeline.class, "pipeline")
                .addParameter(Throwable.class, "failure")
                .beginControlFlow("try")
                .addStatement("pipeline.close()")
                .nextControlFlow("catch ($T closeFailure)", RuntimeException.class)
                .addStatement("failure.addSuppressed(closeFailure)")
                .endControlFlow()
                .build();
    }

    MethodSpec release() {
        return MethodSpec.methodBuilder("release")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .addJavadoc("Closes {@code resource} if it was made; the first failure is kept, later ones are "
                        + "attached to it.\n")
                .returns(RuntimeException.class)
                .addParameter(AutoCloseable.class, "resource")
                .addParameter(RuntimeException.class, "failure")
                .beginControlFlow("if (resource == null)")
                .addStatement("return failure")
                .endControlFlow()
                .beginControlFlow("try")
                .addStatement("resource.close()")
                .addStatement("return failure")
                .nextControlFlow("catch ($T e)", Exception.class)
                .addStatement("$T unchecked = e instanceof $T ? ($T) e : new $T(e)", RuntimeException.class,
                        RuntimeException.class, RuntimeException.class, IllegalStateException.class)
                .beginControlFlow("if (failure == null)")
                .addStatement("return unchecked")
                .endControlFlow()
                .addStatement("failure.addSuppressed(unchecked)")
                .addStatement("return failure")
                .endControlFlow()
                .build();
    }

    private MethodSpec requireOpen() {
        MethodSpec.Builder m = MethodSpec.methodBuilder("requireOpen")
                .addModifiers(Modifier.PRIVATE)
                .addParameter(String.class, "step")
                .beginControlFlow("if ($N)", closed);
        if (registration == Registration.GRAPH) {
            m.addComment("replaying a destroyed graph would touch freed buffers (R5)")
                    .addStatement("throw $T.violation($T.R5_GRAPH_LIFETIME, $N.rank(), $S + $N + $S + step + $S)",
                            CollectivesException.class, Rule.class, comm, "pipeline ", pipeline, " is closed: ",
                            "() after close() would replay a destroyed graph");
        } else {
            m.addStatement("throw $T.usage($N.rank(), $S + $N + $S + step + $S)", CollectivesException.class, comm,
                    "pipeline ", pipeline, " is closed: ", "() called after close()");
        }
        return m.endControlFlow().build();
    }

    private MethodSpec slice() {
        return MethodSpec.methodBuilder("slice")
                .addModifiers(Modifier.PRIVATE)
                .addJavadoc("{@code buffer + offset}, {@code count} elements long; an op reaching past its buffer "
                        + "breaks R7.\n")
                .returns(DeviceBuffer.class)
                .addParameter(DeviceBuffer.class, "buffer")
                .addParameter(String.class, "name")
                .addParameter(long.class, "offset")
                .addParameter(long.class, "count")
                .beginControlFlow("if (offset + count > buffer.count())")
                .addStatement("throw $T.violation($T.R7_ARENA, $N.rank(), $N + $S + name + $S + offset + $S "
                                + "+ (offset + count) + $S + buffer.count() + $S + $N.size() + $S)",
                        CollectivesException.class, Rule.class, comm, pipeline, ": an op reaches past `",
                        "`: elements [", ", ", ") of ", " (", comm, " ranks)")
                .endControlFlow()
                .addStatement("return buffer.slice(offset, count)")
                .build();
    }

    private MethodSpec requireExternal() {
        return MethodSpec.methodBuilder("requireExternal")
                .addModifiers(Modifier.PRIVATE)
                .addJavadoc("An external buffer must have its declared element type and at least its declared count "
                        + "(R13).\n")
                .addParameter(DeviceBuffer.class, "buffer")
                .addParameter(String.class, "name")
                .addParameter(DataType.class, "type")
                .addParameter(long.class, "count")
                .beginControlFlow("if (buffer.type() != type || buffer.count() < count)")
                .addStatement("throw $T.violation($T.R13_TYPES, $N.rank(), $N + $S + name + $S + count + $S + type "
                                + "+ $S + buffer)", CollectivesException.class, Rule.class, comm, pipeline,
                        ": external buffer `", "` must hold at least ", " x ", "; bind was given ")
                .endControlFlow()
                .build();
    }

    private MethodSpec requireRank() {
        return MethodSpec.methodBuilder("requireRank")
                .addModifiers(Modifier.PRIVATE)
                .addParameter(int.class, "rank")
                .addParameter(String.class, "what")
                .beginControlFlow("if (rank < 0 || rank >= $N.size())", comm)
                .addStatement("throw $T.usage($N.rank(), $N + $S + what + $S + rank + $S + $N.size() + $S)",
                        CollectivesException.class, comm, pipeline, ": the ", " is rank ", ", but the communicator has ",
                        comm, " ranks")
                .endControlFlow()
                .build();
    }

    private MethodSpec abandonCapture() {
        return MethodSpec.methodBuilder("abandonCapture")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .addJavadoc("Ends a capture that failed halfway and destroys its partial graph.\n")
                .addParameter(Stream.class, "stream")
                .addParameter(Throwable.class, "failure")
                .beginControlFlow("if (stream.captureStatus() != $T.CaptureStatus.NONE)", Stream.class)
                .beginControlFlow("try")
                .addStatement("stream.endCapture().close()")
                .nextControlFlow("catch ($T endFailure)", RuntimeException.class)
                .addStatement("failure.addSuppressed(endFailure)")
                .endControlFlow()
                .endControlFlow()
                .build();
    }

    private MethodSpec path() {
        return MethodSpec.methodBuilder("path")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .addJavadoc("The registration path an op of registered buffers gets here, and why.\n")
                .returns(String.class)
                .addParameter(Capabilities.class, "capabilities")
                .addParameter(boolean.class, "mtlinkSharp")
                .addParameter(boolean.class, "ibSharp")
                .addParameter(String.class, "how")
                .beginControlFlow("if (!capabilities.registration())")
                .addStatement("return $S + capabilities.libraryVersion() + $S", "none: this library (",
                        ") cannot register user buffers")
                .endControlFlow()
                .beginControlFlow("if (mtlinkSharp && capabilities.mtlinkSharp())")
                .addStatement("return $S + how", "MTLink SHARP: ")
                .endControlFlow()
                .beginControlFlow("if (ibSharp && capabilities.ibSharp())")
                .addStatement("return $S + how + $S", "IB SHARP: ", ", 1 rank per node")
                .endControlFlow()
                .addStatement("return $S + how + (mtlinkSharp ? $S : ibSharp ? $S : $S)", "general: ",
                        " (MTLink SHARP asked for, not available here)", " (IB SHARP asked for, not available here)",
                        " (no SHARP acceleration serves this op)")
                .build();
    }

    private MethodSpec table() {
        return MethodSpec.methodBuilder("table")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .addJavadoc("Rows as aligned columns.\n")
                .returns(String.class)
                .addParameter(ParameterizedTypeName.get(List.class, String[].class), "rows")
                .addStatement("int[] widths = new int[rows.get(0).length]")
                .beginControlFlow("for (String[] row : rows)")
                .beginControlFlow("for (int c = 0; c < row.length; c++)")
                .addStatement("widths[c] = Math.max(widths[c], row[c].length())")
                .endControlFlow()
                .endControlFlow()
                .addStatement("$T text = new $T()", StringBuilder.class, StringBuilder.class)
                .beginControlFlow("for (String[] row : rows)")
                .beginControlFlow("for (int c = 0; c < row.length; c++)")
                .addStatement("text.append(c == 0 ? $S : $S).append(row[c])", "", " | ")
                .addStatement("text.append($S.repeat(c == row.length - 1 ? 0 : widths[c] - row[c].length()))", " ")
                .endControlFlow()
                .addStatement("text.append('\\n')")
                .endControlFlow()
                .addStatement("return text.toString()")
                .build();
    }
}

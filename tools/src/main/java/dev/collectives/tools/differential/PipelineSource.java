package dev.collectives.tools.differential;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.OpKind;
import dev.collectives.tools.differential.PipelineSpec.Accessor;
import dev.collectives.tools.differential.PipelineSpec.Dim;
import dev.collectives.tools.differential.PipelineSpec.Op;
import dev.collectives.tools.differential.PipelineSpec.Side;
import dev.collectives.tools.differential.PipelineSpec.Step;
import java.util.ArrayList;
import java.util.List;

/** Writes a corpus pipeline as the Java source of its {@code @CollectivePipeline} interface. */
final class PipelineSource {
    private PipelineSource() {}

    static String write(PipelineSpec spec) {
        StringBuilder java = new StringBuilder();
        java.append("package ")
                .append(PipelineSpec.PACKAGE)
                .append(";\n\n")
                .append("import dev.collectives.annotation.*;\n")
                .append("import dev.collectives.runtime.DeviceBuffer;\n\n")
                .append("/** A pipeline of the differential harness's random corpus. */\n")
                .append("@CollectivePipeline(registration = Registration.")
                .append(spec.registration())
                .append(spec.allowLegacy() ? ", allowLegacyRegistration = true" : "")
                .append(")\n")
                .append("public interface ")
                .append(spec.name())
                .append(" {\n");
        for (Dim dim : spec.dims()) {
            java.append("    @Dim ")
                    .append(dim.declaredInt() ? "int " : "long ")
                    .append(dim.name())
                    .append("();\n\n");
        }
        for (Accessor a : spec.accessors()) {
            java.append("    ")
                    .append(accessor(a))
                    .append("\n    DeviceBuffer ")
                    .append(a.name())
                    .append("();\n\n");
        }
        for (Step step : spec.steps()) {
            if (step.grouped()) {
                java.append("    @Grouped\n");
            }
            if (step.captured() != null) {
                java.append("    @Capture(param = \"off\", values = {")
                        .append(step.captured()[0])
                        .append("})\n")
                        .append("    @Capture(param = \"n\", values = {")
                        .append(step.captured()[1])
                        .append("})\n");
            }
            for (Op op : step.ops()) {
                java.append("    ").append(op(op)).append("\n");
            }
            java.append("    void ")
                    .append(step.name())
                    .append(step.parameters() ? "(long off, long n)" : "()")
                    .append(";\n\n");
        }
        java.setLength(java.length() - 1);
        return java.append("}\n").toString();
    }

    private static String accessor(Accessor a) {
        List<String> attributes = new ArrayList<>();
        switch (a.kind()) {
            case BUFFER -> {
                attributes.add("type = DataType." + a.type());
                attributes.add(size("count", a.count()));
                if (a.allocator() != Allocator.MEM_ALLOC) {
                    attributes.add("allocator = Allocator." + a.allocator());
                }
                if (!a.registered()) {
                    attributes.add("registered = false");
                }
            }
            case VIEW -> {
                attributes.add("of = \"" + a.of() + "\"");
                if (!a.offsetBytes().terms().isEmpty()) {
                    attributes.add(size("offsetBytes", a.offsetBytes()));
                }
                attributes.add("type = DataType." + a.type());
                attributes.add(size("count", a.count()));
            }
            case EXTERNAL -> {
                attributes.add("type = DataType." + a.type());
                attributes.add(size("count", a.count()));
            }
        }
        String annotation = switch (a.kind()) {
            case BUFFER -> "@Buffer";
            case VIEW -> "@View";
            case EXTERNAL -> "@External";
        };
        return annotation + "(" + String.join(", ", attributes) + ")";
    }

    private static String op(Op op) {
        OpKind kind = op.kind();
        List<String> attributes = new ArrayList<>();
        if (kind.hasSend()) {
            attributes.add(kind.sendAttribute() + " = \"" + op.send().accessor() + "\"");
            offset(attributes, kind.sendOffsetAttribute(), op.send());
        }
        if (kind.hasRecv()) {
            attributes.add(kind.recvAttribute() + " = \"" + op.recv().accessor() + "\"");
            offset(attributes, kind.recvOffsetAttribute(), op.recv());
        }
        attributes.add(size(kind.countAttribute(), op.count()));
        if (op.reduce() != null) {
            attributes.add("op = ReduceOp." + op.reduce());
        }
        if (kind.hasRoot()) {
            attributes.add("root = " + op.root());
        }
        if (op.peer() != null) {
            attributes.add("peer = Peer." + op.peer());
        }
        return kind.annotation() + "(" + String.join(", ", attributes) + ")";
    }

    private static void offset(List<String> attributes, String name, Side side) {
        if (!side.offset().terms().isEmpty()) {
            attributes.add(size(name, side.offset()));
        }
    }

    /** {@code name = 12} for a constant, else {@code nameExpr = "3 + 2 * ranks"}. */
    private static String size(String name, Expr value) {
        if (value.isConstant()) {
            long c = value.constant();
            return name + " = " + c + (c > Integer.MAX_VALUE ? "L" : "");
        }
        return OpKind.exprTwin(name) + " = \"" + value.source() + "\"";
    }
}

package dev.collectives.processor.validation;

import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.CaptureDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;

/**
 * [DSL capture]: {@code @Capture} belongs on a step with parameters of a GRAPH pipeline; it names each parameter
 * exactly once with at least one value, and the tuples it captures (the cartesian product) fit in
 * {@code graphCache}, which is at least 1.
 */
final class DslCaptureValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        boolean cached = model.registration() == Registration.GRAPH
                && model.steps().stream().anyMatch(s -> !s.parameters().isEmpty());
        if (cached && model.graphCache() < 1) {
            diagnostics.error(
                    Tag.CAPTURE,
                    model.site("graphCache"),
                    "graphCache = " + model.graphCache() + ": a GRAPH step with parameters keeps at least 1 graph");
        }
        for (StepDecl s : model.steps()) {
            if (!s.captures().isEmpty()) {
                check(model, s, diagnostics);
            }
        }
    }

    private static void check(PipelineModel model, StepDecl s, Diagnostics diagnostics) {
        CaptureDecl first = s.captures().get(0);
        if (model.registration() != Registration.GRAPH || s.parameters().isEmpty()) {
            diagnostics.error(
                    Tag.CAPTURE,
                    first.site(),
                    "@Capture on `" + s.name() + "`: only steps with "
                            + "parameters of a GRAPH pipeline are captured per argument tuple");
            return;
        }
        List<String> names =
                s.parameters().stream().map(p -> p.getSimpleName().toString()).toList();
        Map<String, CaptureDecl> byParam = new HashMap<>();
        long tuples = 1;
        for (CaptureDecl c : s.captures()) {
            if (c.param() == null) {
                continue;
            }
            if (!names.contains(c.param())) {
                diagnostics.error(
                        Tag.CAPTURE,
                        c.site("param"),
                        "@Capture param = \"" + c.param() + "\" is no " + "parameter of `" + s.name() + "`; "
                                + Suggestions.hint(c.param(), names, "parameters"));
            } else if (byParam.putIfAbsent(c.param(), c) != null) {
                diagnostics.error(
                        Tag.CAPTURE,
                        c.site("param"),
                        "@Capture names `" + c.param() + "` twice on `" + s.name() + "`; give its values once");
            }
            if (c.values().isEmpty()) {
                diagnostics.error(Tag.CAPTURE, c.site("values"), "@Capture of `" + c.param() + "` has no values");
            }
            boolean isInt = s.parameters().stream()
                    .anyMatch(p -> p.getSimpleName().contentEquals(c.param())
                            && p.asType().getKind() == TypeKind.INT);
            for (Long v : c.values()) {
                if (v != null && (v < 0 || isInt && v > Integer.MAX_VALUE)) {
                    diagnostics.error(
                            Tag.CAPTURE,
                            c.site("values"),
                            "@Capture of `" + c.param() + "` has the value " + v + "; parameters are at least 0"
                                    + (isInt ? " and this one is an int" : ""));
                }
            }
            tuples = Math.multiplyExact(tuples, Math.max(1, c.values().size()));
        }
        for (VariableElement p : s.parameters()) {
            if (!byParam.containsKey(p.getSimpleName().toString())) {
                diagnostics.error(
                        Tag.CAPTURE,
                        first.site(),
                        "@Capture on `" + s.name() + "` gives no values for " + "parameter `" + p.getSimpleName()
                                + "`; the captured tuples need every parameter");
            }
        }
        if (tuples > model.graphCache() && model.graphCache() >= 1) {
            diagnostics.error(
                    Tag.CAPTURE,
                    first.site(),
                    "@Capture on `" + s.name() + "` captures " + tuples
                            + " tuples (the product of the values), more than graphCache = " + model.graphCache()
                            + " keeps; raise graphCache or capture fewer");
        }
    }
}

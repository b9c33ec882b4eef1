package dev.collectives.processor.validation;

import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;
import java.util.HashSet;
import java.util.Set;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;

/**
 * [DSL parameter]: a step's parameters are {@code long} or {@code int} values its ops' expressions use; one that no
 * expression uses is a warning; a parameter may not hide a dim or {@code ranks}.
 */
final class DslParameterValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (StepDecl s : model.steps()) {
            Set<String> used = new HashSet<>();
            for (OpDecl o : s.ops()) {
                for (String attribute : o.kind().numericAttributes()) {
                    Expr e = o.expression(attribute);
                    if (e != null) {
                        e.names().forEach(n -> used.add(n.name()));
                    }
                }
            }
            for (VariableElement p : s.parameters()) {
                String name = p.getSimpleName().toString();
                TypeKind kind = p.asType().getKind();
                if (kind != TypeKind.LONG && kind != TypeKind.INT) {
                    diagnostics.error(
                            Tag.PARAMETER,
                            Site.of(p),
                            "parameter `" + p.asType() + " " + name + "` of step `" + s.name()
                                    + "`: step parameters are counts and offsets, `long` or `int`");
                } else if (name.equals(ModelReader.RANKS) || model.dim(name).isPresent()) {
                    diagnostics.error(
                            Tag.PARAMETER,
                            Site.of(p),
                            "parameter `" + name + "` of step `" + s.name()
                                    + "` hides "
                                    + (name.equals(ModelReader.RANKS)
                                            ? "`ranks`, the communicator's size"
                                            : "the @Dim `" + name + "()`")
                                    + "; rename it");
                } else if (!used.contains(name)) {
                    diagnostics.warning(
                            Tag.PARAMETER,
                            Site.of(p),
                            "parameter `" + name + "` of step `" + s.name()
                                    + "` is used by no expression of its ops; use it (e.g. countExpr = \"" + name
                                    + "\") or remove it");
                }
            }
        }
    }
}

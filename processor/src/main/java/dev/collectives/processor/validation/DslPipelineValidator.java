package dev.collectives.processor.validation;

import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;

/**
 * [DSL pipeline]: the annotated type itself. A pipeline is a non-generic interface that extends nothing (its
 * accessors and steps are all declared in it), reachable from its package, with a registration mode.
 */
final class DslPipelineValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        TypeElement type = model.type();
        if (type.getKind() != ElementKind.INTERFACE) {
            diagnostics.error(
                    Tag.PIPELINE,
                    model.site(),
                    "@CollectivePipeline belongs on an interface; `"
                            + type.getSimpleName() + "` is " + article(type.getKind()) + "; declare it as `interface "
                            + type.getSimpleName() + "`");
        }
        if (type.getModifiers().contains(Modifier.SEALED)) {
            diagnostics.error(
                    Tag.PIPELINE,
                    model.site(),
                    "pipeline `" + type.getSimpleName() + "` is sealed; the "
                            + "generated Collective" + model.flatName()
                            + " implements it but cannot be in its permits clause: "
                            + "drop `sealed` and `permits`");
        }
        if (!type.getTypeParameters().isEmpty()) {
            diagnostics.error(
                    Tag.PIPELINE,
                    model.site(),
                    "pipeline `" + type.getSimpleName()
                            + "` is generic; a pipeline's buffers and ops are fixed, so drop the type parameters "
                            + type.getTypeParameters());
        }
        for (TypeMirror parent : type.getInterfaces()) {
            diagnostics.error(
                    Tag.PIPELINE,
                    Site.of(type),
                    "pipeline `" + type.getSimpleName() + "` extends `" + parent
                            + "`; pipelines cannot inherit accessors or steps: declare them all in `"
                            + type.getSimpleName()
                            + "`");
        }
        for (Element e = type; e instanceof TypeElement t; e = t.getEnclosingElement()) {
            if (t.getModifiers().contains(Modifier.PRIVATE)
                    || t.getNestingKind() == javax.lang.model.element.NestingKind.LOCAL) {
                diagnostics.error(
                        Tag.PIPELINE,
                        model.site(),
                        "`" + t.getSimpleName() + "` is "
                                + (t.getModifiers().contains(Modifier.PRIVATE) ? "private" : "local")
                                + "; the generated Collective" + model.flatName()
                                + " sits beside it in its package and must "
                                + "see it: make it package-private or public");
                break;
            }
        }
        if (model.registration() == null) {
            diagnostics.error(
                    Tag.PIPELINE,
                    model.site("registration"),
                    "pipeline `" + type.getSimpleName() + "` needs registration = Registration.GRAPH, LOCAL or NONE");
        }
        if (model.ranks() < 0) {
            diagnostics.error(
                    Tag.PIPELINE,
                    model.site("ranks"),
                    "ranks = " + model.ranks()
                            + " is negative; declare the world size (> 0) or leave ranks out (0: unknown until bind)");
        }
    }

    private static String article(ElementKind kind) {
        String name = kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        return ("aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
    }
}
